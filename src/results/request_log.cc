#include "results/request_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "results/output_file.h"
#include "results/request_jsonl.h"

namespace sb::results {

namespace {
constexpr size_t kEarlyFlushBytes = size_t{4} << 20;

// requests.jsonl: new, or an earlier run's regular file truncated (see the header).
int open_request_log(const std::string& path) {
  struct stat st {};
  const bool earlier = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  return open_output_file(path, earlier);
}

uint64_t count_lines(const char* begin, const char* end) {
  return static_cast<uint64_t>(std::count(begin, end, '\n'));
}
}  // namespace

RequestLog::RequestLog(const std::string& dir, std::chrono::milliseconds flush_interval,
                       const TimeSource* time_source, WriteFn write_fn)
    : path_(dir + "/requests.jsonl"),
      interval_(flush_interval),
      source_(time_source_or_steady(time_source)),
      sleeper_(source_),
      write_(write_fn ? std::move(write_fn) : WriteFn(&::write)) {
  fd_ = open_request_log(path_);
  thread_ = std::thread([this] { flusher(); });
}

RequestLog::~RequestLog() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() explicitly to see write errors
  }
}

void RequestLog::append(const metrics::RequestRecord& r) {
  thread_local std::string line;
  line.clear();
  append_request_jsonl(line, r);
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    buffer_ += line;
    ++lines_;
    wake = buffer_.size() >= kEarlyFlushBytes;
  }
  if (wake) sleeper_.wake();
}

uint64_t RequestLog::lines_appended() const {
  std::lock_guard lock(mu_);
  return lines_;
}

uint64_t RequestLog::lines_kept() const {
  std::lock_guard wlock(write_mu_);
  return kept_lines_;
}

uint64_t RequestLog::lines_lost() const {
  const uint64_t appended = lines_appended();
  std::lock_guard wlock(write_mu_);
  return write_error_.empty() ? 0 : appended - kept_lines_;
}

void RequestLog::write_out(std::string& data) {
  size_t done = 0;
  while (write_error_.empty() && done < data.size()) {
    const ssize_t n = write_(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail_write(data, done, n < 0 ? errno : ENOSPC);  // 0 bytes for a non-empty write: full
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (write_error_.empty()) {
    kept_bytes_ += data.size();
    kept_lines_ += count_lines(data.data(), data.data() + data.size());
  }
  data.clear();
}

void RequestLog::fail_write(const std::string& data, size_t done, int err) {
  // Every line of `data` up to its last newline within the written bytes is whole on disk.
  const size_t cut = done == 0 ? std::string::npos : data.rfind('\n', done - 1);
  const size_t whole = cut == std::string::npos ? 0 : cut + 1;
  kept_bytes_ += whole;
  kept_lines_ += count_lines(data.data(), data.data() + whole);
  std::string torn;
  if (done > whole && ::ftruncate(fd_, static_cast<off_t>(kept_bytes_)) != 0)
    torn = fmt::format(" (its cut last line stays: ftruncate failed: {})", std::strerror(errno));
  write_error_ = fmt::format("writing {} failed: {}{}", path_, std::strerror(err), torn);
}

void RequestLog::flusher() {
  std::string pending;
  while (true) {
    sleeper_.sleep_until(source_.now() + interval_);  // woken early by append() and close()
    bool stop = false;
    {
      std::lock_guard lock(mu_);
      stop = closing_;
      pending.swap(buffer_);
    }
    if (!pending.empty()) {
      std::lock_guard wlock(write_mu_);
      write_out(pending);
    }
    if (stop) return;
  }
}

void RequestLog::close() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closing_ = true;
    closed_ = true;
  }
  sleeper_.wake();
  if (thread_.joinable()) thread_.join();  // the flusher writes what is left before it returns
  std::string error;
  {
    std::lock_guard wlock(write_mu_);
    // EINVAL: a file that cannot be synced (not a failure of the data).
    if (fd_ >= 0 && ::fsync(fd_) != 0 && errno != EINVAL && write_error_.empty())
      write_error_ = fmt::format("syncing {} failed: {}", path_, std::strerror(errno));
    if (fd_ >= 0 && ::close(fd_) != 0 && write_error_.empty())
      write_error_ = fmt::format("closing {} failed: {}", path_, std::strerror(errno));
    fd_ = -1;
    error = write_error_;
  }
  if (error.empty()) return;
  throw Error(fmt::format("{}; it keeps every complete line, {} requests; {} later ones are lost",
                          error, lines_kept(), lines_lost()),
              ExitCode::io_error);
}

}  // namespace sb::results
