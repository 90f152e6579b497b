#pragma once
// A TimeSource for tests (common/time_source.h): time stands still until the test moves it.
//
// Contract:
//   - now() starts at `start` and changes only through advance()/advance_to(), never backwards.
//   - Moving the time wakes every Sleeper of this source whose deadline has come; a Sleeper's
//     wake() ends its sleep as on the steady clock.
//   - wait_for_sleepers(n) blocks the test (on a condition variable, not a timed sleep) until
//     at least n threads sleep on this source for a deadline still ahead, i.e. until the
//     code under test has done the work of the previous instant and waits for the next. It
//     returns false if that does not happen within `limit` of real time (a hung test fails
//     instead of blocking forever).
//   - It must outlive its Sleepers.
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "common/time_source.h"

namespace sb {

class ManualTimeSource final : public TimeSource {
 public:
  explicit ManualTimeSource(TimePoint start = TimePoint{} + std::chrono::hours(1)) : now_(start) {}

  TimePoint now() const override;
  void advance(Nanos by);
  void advance_to(TimePoint t);  // ignored when t is not after now()
  bool wait_for_sleepers(int n, Nanos limit = std::chrono::seconds(30)) const;
  int sleepers() const;

 private:
  bool sleep_until(Sleeper& s, TimePoint deadline) const override;
  void wake(Sleeper& s) const override;

  int asleep_locked() const;  // sleepers not woken whose deadline is after now_; under mu_

  mutable std::mutex mu_;                      // guards now_, asleep_ and every Sleeper's woken_
  mutable std::condition_variable moved_;      // time moved or a sleeper was woken
  mutable std::condition_variable asleep_cv_;  // a sleeper went to sleep
  TimePoint now_;
  mutable std::vector<std::pair<const Sleeper*, TimePoint>> asleep_;  // with their deadlines
};

}  // namespace sb
