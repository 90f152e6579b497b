#pragma once
// telemetry.jsonl streamed as the samples are taken (issue 20: a run killed with kill -9
// keeps every sample up to its last interval).
//
// Contract:
//   - It writes to a descriptor the caller opened (plan/run_telemetry: results::
//     open_output_file, no symbolic link followed) and closes it in close().
//   - append() may be called from any sampler thread: it formats the point's line (the
//     series' prefix and append_point_jsonl: the format SeriesStore::write_jsonl writes) into
//     a buffer under a short lock, no I/O.
//   - flush() writes the buffer with write(2), whole lines only; each sampler calls it after
//     its tick, so a kill -9 loses at most the samples of the ticks in progress. The kernel
//     keeps what was written when the process dies; no fsync (a power loss is not covered).
//   - Lines are in the order the samples were added: each series in time order; lines of
//     different samplers interleave within an interval.
//   - close() flushes, closes, and is idempotent; ok() is false once a write or the close
//     failed (error() names the path and the reason); append() after close() is ignored.
#include <cstdint>
#include <mutex>
#include <string>

#include "telemetry/series_store.h"

namespace sb::telemetry {

class JsonlStream {
 public:
  JsonlStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~JsonlStream() { close(); }
  JsonlStream(const JsonlStream&) = delete;
  JsonlStream& operator=(const JsonlStream&) = delete;

  void append(std::string_view series_prefix, int64_t t_ns, double value);
  void flush();
  void close();

  const std::string& path() const { return path_; }
  bool ok() const;
  std::string error() const;
  int64_t lines_written() const;

 private:
  void write_all(const std::string& data);  // under write_mu_

  int fd_;
  std::string path_;
  mutable std::mutex mu_;  // guards buffer_, closed_
  std::string buffer_;
  bool closed_ = false;
  mutable std::mutex write_mu_;  // serialises writes; guards fd_, error_, lines_
  std::string error_;
  int64_t lines_ = 0;
};

}  // namespace sb::telemetry
