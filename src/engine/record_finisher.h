#pragma once
// Post-processing of finished requests off the event loop (docs/architecture.md: nothing
// heavy on the hot path). A worker whose run recounts output tokens with a tokenizer or
// scores quality against references hands every finished record to its RecordFinisher; the
// finisher's one thread runs `finish` on it (recount, score, drop the text, deliver), so the
// loop goes straight back to the other streams in flight.
//
// Contract:
//   - push() may be called from any thread; it never waits for the work, only for the queue's
//     lock. The queue is unbounded: records wait (with their text) while scoring lags.
//   - `finish` runs on the finisher's thread only, once per pushed job, in push order. An
//     exception from it is said on stderr (naming the request) and the next job goes on.
//   - close() runs `finish` on every job pushed before it, then joins the thread; idempotent.
//     The destructor closes. push() after close() is a bug (the job is dropped).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "metrics/request_record.h"

namespace sb::engine {

// One finished request and what its post-processing needs.
struct FinishJob {
  metrics::RequestRecord record;
  std::string reference;  // the work item's expected answer; empty: not scored
};

class RecordFinisher {
 public:
  explicit RecordFinisher(std::function<void(FinishJob&)> finish);
  ~RecordFinisher();
  RecordFinisher(const RecordFinisher&) = delete;
  RecordFinisher& operator=(const RecordFinisher&) = delete;

  void push(FinishJob job);
  void close();

 private:
  void loop();

  std::function<void(FinishJob&)> finish_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<FinishJob> queue_;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace sb::engine
