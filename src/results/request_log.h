#pragma once
// The results writer for DIR/requests.jsonl.
//
// Contract:
//   - The constructor creates (or truncates) DIR/requests.jsonl; DIR must exist. It throws
//     sb::Error naming the path when the file cannot be opened.
//   - append() may be called from any number of threads at once. It formats the line outside
//     any lock, then appends it to an in-memory buffer under a short lock; it never does I/O
//     itself (a buffer over 4 MiB wakes the flusher early).
//   - A background thread writes the buffer to the file every `flush_interval` (default 1 s)
//     of `time_source` (null: the steady clock; tests pass a ManualTimeSource),
//     so a crash of the process loses at most the last interval's lines. Lines are whole:
//     a line is never split between two writes by another line. No fsync: the data is in the
//     kernel, which survives a process crash, not a power loss.
//   - close() writes what is left, stops the thread and closes the file; it is idempotent and
//     is called by the destructor. It throws sb::Error if any write failed (the destructor
//     swallows that). append() after close() is ignored.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "common/time_source.h"
#include "metrics/request_record.h"

namespace sb::results {

class RequestLog {
 public:
  explicit RequestLog(const std::string& dir,
                      std::chrono::milliseconds flush_interval = std::chrono::seconds(1),
                      const TimeSource* time_source = nullptr);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  void append(const metrics::RequestRecord& r);
  void close();

  const std::string& path() const { return path_; }
  uint64_t lines_appended() const;

 private:
  void flusher();
  void write_out(std::string& data);  // under write_mu_

  std::string path_;
  std::chrono::milliseconds interval_;
  const TimeSource& source_;
  Sleeper sleeper_;  // the flusher's wait: the interval, an early flush or close()
  int fd_ = -1;

  mutable std::mutex mu_;  // guards buffer_, closing_, closed_, lines_
  std::string buffer_;
  bool closing_ = false;
  bool closed_ = false;
  uint64_t lines_ = 0;

  std::mutex write_mu_;  // serialises writes to fd_; guards write_error_
  std::string write_error_;

  std::thread thread_;
};

}  // namespace sb::results
