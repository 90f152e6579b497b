#pragma once
// The results writer for DIR/requests.jsonl.
//
// Contract:
//   - The constructor creates DIR/requests.jsonl (results/output_file.h: exclusively, never
//     through a symbolic link). A regular file of that name can only be an earlier run's in a
//     folder accepted with --overwrite (results/output_dir.h refuses any other non-empty
//     folder): it is truncated. DIR must exist. It throws sb::Error naming the path when the
//     file cannot be opened.
//   - append() may be called from any number of threads at once. It formats the line outside
//     any lock, then appends it to an in-memory buffer under a short lock; it never does I/O
//     itself (a buffer over 4 MiB wakes the flusher early).
//   - A background thread writes the buffer to the file every `flush_interval` (default 1 s)
//     of `time_source` (null: the steady clock; tests pass a ManualTimeSource),
//     so a crash of the process loses at most the last interval's lines. Lines are whole:
//     a line is never split between two writes by another line.
//   - A failed write (disk full, I/O error) keeps every complete line: a line cut by it is
//     truncated away (ftruncate back to the last newline written). The error is remembered,
//     nothing more is written, and every line not on disk then or appended later is counted
//     in lines_lost(). The process goes on; close() reports it.
//   - close() writes what is left, stops the thread, fsyncs and closes the file; it is
//     idempotent and is called by the destructor. It throws sb::Error(io_error) if any write,
//     the fsync or the close failed, naming the path, the error, the lines kept and lost (the
//     destructor swallows that). append() after close() is ignored.
//   - `write_fn` (tests: a disk that fills up) replaces write(2): same arguments, result and
//     errno. Null: write(2).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/time_source.h"
#include "metrics/request_record.h"

namespace sb::results {

using WriteFn = std::function<ssize_t(int fd, const void* data, size_t size)>;

class RequestLog {
 public:
  explicit RequestLog(const std::string& dir,
                      std::chrono::milliseconds flush_interval = std::chrono::seconds(1),
                      const TimeSource* time_source = nullptr, WriteFn write_fn = nullptr);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  void append(const metrics::RequestRecord& r);
  void close();

  const std::string& path() const { return path_; }
  uint64_t lines_appended() const;
  uint64_t lines_kept() const;  // complete lines in the file
  uint64_t lines_lost() const;  // appended, not in the file (after a write failure)

 private:
  void flusher();
  void write_out(std::string& data);  // under write_mu_
  // After `done` bytes of `data` were written and the write failed with `err`: the cut line
  // truncated away, the error kept. Under write_mu_.
  void fail_write(const std::string& data, size_t done, int err);

  std::string path_;
  std::chrono::milliseconds interval_;
  const TimeSource& source_;
  Sleeper sleeper_;  // the flusher's wait: the interval, an early flush or close()
  WriteFn write_;
  int fd_ = -1;

  mutable std::mutex mu_;  // guards buffer_, closing_, closed_, lines_
  std::string buffer_;
  bool closing_ = false;
  bool closed_ = false;
  uint64_t lines_ = 0;

  mutable std::mutex write_mu_;  // serialises writes to fd_; guards the fields below
  std::string write_error_;      // the first failure; nothing is written after it
  uint64_t kept_bytes_ = 0;      // the file's size: whole lines only
  uint64_t kept_lines_ = 0;

  std::thread thread_;
};

}  // namespace sb::results
