#pragma once
// The simulated engine's scheduler: pure (no I/O, no real clock), driven by the
// caller's time points, so tests run it with a fake clock.
//
// Model (docs/simulator.md): a request arrives, spends the per-request overhead
// (in parallel, or under the serial lock inside the engine), waits in a FIFO queue,
// is admitted into the running batch when the policy, max batch size and KV
// capacity allow, and then gets one token per decode step. A step that admits new
// requests also prefills their prompts: duration = [serial overhead] + prefill(sum of
// new prompt tokens) + decode_step(batch, resident KV tokens). Every running request
// receives a token at the step's end. So a lone request takes
// overhead + prefill(p) + n decode steps.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "sim/config.h"
#include "sim/cost_model.h"

namespace sb::sim {

struct SchedRequest {
  uint64_t id = 0;
  int64_t prompt_tokens = 0;
  int64_t max_new_tokens = 0;  // KV reservation = prompt + max_new
  int64_t output_tokens = 0;   // tokens to generate (<= max_new_tokens; EOS may stop early)
};

enum class Admission {
  accepted,    // queued
  queue_full,  // queue_limit requests already wait (TGI overloaded/429)
  kv_full,     // KV reservation cannot fit (ever, or now with kv_full=reject): 503 / overloaded
};

struct SchedEvent {
  enum class Kind { admitted, token } kind = Kind::token;
  uint64_t id = 0;
  TimePoint time{};    // model time of the event
  int64_t index = 0;   // token: 1-based index
  int batch_size = 0;  // running batch size of the step
  bool last = false;   // token: the request's last token
};

struct SchedStats {
  int64_t waiting = 0;         // in the queue (including the overhead phase)
  int64_t running = 0;         // in the batch
  int64_t kv_used_tokens = 0;  // reserved by running requests
  int64_t kv_capacity_tokens = 0;
  int64_t batch_max_tokens = 0;  // sum of prompt + max_new of the running batch
  int64_t resident_kv_tokens = 0;
  bool busy = false;    // a step is in progress
  Nanos busy_total{0};  // total model time spent in steps (completed + current start)
};

class Scheduler {
 public:
  explicit Scheduler(const SimConfig& c);

  // Offers a request arriving at `now`. Call advance(now) before (to bring the model up
  // to date) and after (to start it at once when the engine is idle).
  Admission submit(const SchedRequest& r, TimePoint now);
  // Drops a request wherever it is (client gone); frees its KV. No more events for it.
  void cancel(uint64_t id);
  // Processes every model event with time <= now, in time order, appending to `out`.
  void advance(TimePoint now, std::vector<SchedEvent>& out);
  // The next model event time, if any.
  std::optional<TimePoint> next_event() const;

  SchedStats stats() const;
  const CostModel& cost() const { return cost_; }

 private:
  struct Req {
    SchedRequest r;
    TimePoint ready{};
    int64_t generated = 0;
    bool cancelled = false;
    int64_t kv_need() const { return r.prompt_tokens + r.max_new_tokens; }
  };
  void finish_step(TimePoint t, std::vector<SchedEvent>& out);
  void try_start_step(TimePoint t, std::vector<SchedEvent>& out);

  SimConfig cfg_;
  CostModel cost_;
  int batch_cap_;
  Nanos window_;
  std::deque<Req> pending_;  // in the (parallel) overhead phase, ordered by ready time
  std::deque<Req> waiting_;
  std::vector<Req> running_;
  int64_t kv_reserved_ = 0;
  int64_t kv_waiting_ = 0;  // reservations of pending + waiting
  std::optional<TimePoint> step_end_;
  TimePoint step_start_{};
  int step_batch_ = 0;
  Nanos busy_done_{0};
};

}  // namespace sb::sim
