#include "results/request_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "results/request_jsonl.h"

namespace sb::results {

namespace {
constexpr size_t kEarlyFlushBytes = size_t{4} << 20;
}

RequestLog::RequestLog(const std::string& dir, std::chrono::milliseconds flush_interval,
                       const TimeSource* time_source)
    : path_(dir + "/requests.jsonl"),
      interval_(flush_interval),
      source_(time_source_or_steady(time_source)),
      sleeper_(source_) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(fmt::format("cannot open {} for writing: {}", path_, std::strerror(errno)));
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

void RequestLog::write_out(std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (write_error_.empty())
        write_error_ = fmt::format("writing {} failed: {}", path_, std::strerror(errno));
      break;
    }
    done += static_cast<size_t>(n);
  }
  data.clear();
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
    if (fd_ >= 0 && ::close(fd_) != 0 && write_error_.empty())
      write_error_ = fmt::format("closing {} failed: {}", path_, std::strerror(errno));
    fd_ = -1;
    error = write_error_;
  }
  if (!error.empty()) throw Error(error);
}

}  // namespace sb::results
