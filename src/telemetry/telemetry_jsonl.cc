#include "telemetry/telemetry_jsonl.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace sb::telemetry {

void JsonlStream::append(std::string_view series_prefix, int64_t t_ns, double value) {
  std::lock_guard lock(mu_);
  if (!closed_) append_point_jsonl(buffer_, series_prefix, t_ns, value);
}

void JsonlStream::flush() {
  std::string data;
  {
    std::lock_guard lock(mu_);
    data.swap(buffer_);
  }
  if (data.empty()) return;
  std::lock_guard wlock(write_mu_);
  write_all(data);
}

void JsonlStream::write_all(const std::string& data) {
  if (fd_ < 0 || !error_.empty()) return;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = fmt::format("writing {} failed: {}", path_, std::strerror(errno));
      return;
    }
    done += static_cast<size_t>(n);
  }
  lines_ += std::count(data.begin(), data.end(), '\n');
}

void JsonlStream::close() {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
  }
  flush();
  std::lock_guard wlock(write_mu_);
  if (fd_ >= 0 && ::close(fd_) != 0 && error_.empty())
    error_ = fmt::format("closing {} failed: {}", path_, std::strerror(errno));
  fd_ = -1;
}

bool JsonlStream::ok() const {
  std::lock_guard wlock(write_mu_);
  return error_.empty();
}

std::string JsonlStream::error() const {
  std::lock_guard wlock(write_mu_);
  return error_;
}

int64_t JsonlStream::lines_written() const {
  std::lock_guard wlock(write_mu_);
  return lines_;
}

}  // namespace sb::telemetry
