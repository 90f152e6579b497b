#pragma once
// The clock seam (issue 14): where the parts of a run that keep time on a schedule read the
// time and wait for it — the request log's flush interval, the telemetry samplers' ticks at
// run_start + k * interval, the engine's run start, phase starts and open-loop schedule.
//
// Contract:
//   - steady_time_source() is the process default: now() is Clock::now() (steady_clock) and
//     a Sleeper waits on a condition variable with a steady_clock deadline.
//   - ManualTimeSource (common/manual_time_source.h) is for tests: its time moves only when
//     the test advances it, which wakes every Sleeper whose deadline has come; nothing
//     sleeps in real time.
//   - Sockets, Asio timers and kernel receive stamps (src/net) are always on the steady
//     clock. A source other than the default is therefore only meaningful for code that
//     keeps no socket or Asio timer (docs/architecture.md, "The clock seam").
#include <condition_variable>
#include <mutex>

#include "common/clock.h"

namespace sb {

class Sleeper;

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual TimePoint now() const = 0;

 private:
  friend class Sleeper;
  // Blocks until now() >= deadline or the sleeper is woken; true when woken (the wake is
  // consumed). Each source owns the locking of its sleepers.
  virtual bool sleep_until(Sleeper& sleeper, TimePoint deadline) const = 0;
  virtual void wake(Sleeper& sleeper) const = 0;
};

// The steady clock; one instance for the process, never destroyed.
const TimeSource& steady_time_source();

// `source` when given, else the steady clock (config structs keep a null pointer for "the
// default"). Inline and non-virtual for the default.
inline const TimeSource& time_source_or_steady(const TimeSource* source) {
  return source ? *source : steady_time_source();
}
inline TimePoint now_of(const TimeSource* source) {
  return source ? source->now() : Clock::now();
}

// One thread's interruptible wait on a TimeSource (a sampler's or a flusher's loop). One
// thread sleeps in it at a time; wake() may be called from any thread. A wake() given while
// nobody sleeps is kept and ends the next sleep_until() at once.
class Sleeper {
 public:
  explicit Sleeper(const TimeSource& source) : source_(source) {}
  Sleeper(const Sleeper&) = delete;
  Sleeper& operator=(const Sleeper&) = delete;

  // Returns false when the deadline (on the source's clock) has come, true when woken.
  bool sleep_until(TimePoint deadline) { return source_.sleep_until(*this, deadline); }
  void wake() { source_.wake(*this); }
  const TimeSource& source() const { return source_; }

 private:
  friend class SteadyTimeSource;
  friend class ManualTimeSource;
  const TimeSource& source_;
  std::mutex mu_;  // the steady source's lock (a manual source uses its own)
  std::condition_variable cv_;
  bool woken_ = false;
};

}  // namespace sb
