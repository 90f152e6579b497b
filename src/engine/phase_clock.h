#pragma once
// The timing rules of a phase that do not need a socket, as pure code on the clock seam
// (common/time_source.h), so tests drive them with a ManualTimeSource:
//   PhaseStopper:  when a phase stops issuing and when what is still in flight is cancelled
//                  (after the grace period), as a function of the instants it is polled at;
//   OpenLoopShare: the open-loop schedule entries one worker of one shard sends, and their
//                  intended send times (t_sched = phase start + offset), in order.
// The engine polls PhaseStopper with EngineConfig::time_source's now() and sleeps until each
// t_sched on an Asio timer, which is on the steady clock (see EngineConfig::time_source).
#include <cstdint>
#include <optional>
#include <vector>

#include "common/clock.h"

namespace sb::engine {

class PhaseStopper {
 public:
  // stop_at: no request is issued at or after it (TimePoint::max(): none); grace: how long
  // requests in flight may finish once the phase stops.
  PhaseStopper(TimePoint stop_at, Nanos grace) : stop_at_(stop_at), grace_(grace) {}
  // Polled with the time and the interrupt flag. True exactly once: at the first poll at or
  // after the cancel instant, which is fixed at the first poll that finds the phase stopping
  // (interrupted, or at/after stop_at): that poll's instant + grace.
  bool cancel_now(TimePoint now, bool interrupted);
  std::optional<TimePoint> cancel_at() const { return cancel_at_; }
  bool cancelled() const { return cancelled_; }

 private:
  TimePoint stop_at_;
  Nanos grace_;
  std::optional<TimePoint> cancel_at_;
  bool cancelled_ = false;
};

struct OpenLoopSend {
  uint64_t k = 0;   // index into the schedule
  uint64_t id = 0;  // request id: first_index + k
  TimePoint t_sched;
};

// Entries k = shard + worker * shards, then every workers * shards further, while k is in the
// schedule, the id is below end_index and t_sched is before stop_at.
class OpenLoopShare {
 public:
  struct Spec {
    const std::vector<Nanos>* schedule = nullptr;  // offsets from start
    TimePoint start;
    TimePoint stop_at = TimePoint::max();
    uint64_t first_index = 0, end_index = UINT64_MAX;
    int worker = 0, workers = 1;
    int shard = 0, shards = 1;
  };
  explicit OpenLoopShare(const Spec& spec);
  // The next send of this share, in schedule order; nullopt when the share is done.
  std::optional<OpenLoopSend> next();

 private:
  Spec spec_;
  uint64_t k_;
  uint64_t step_;
};

}  // namespace sb::engine
