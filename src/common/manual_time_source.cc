#include "common/manual_time_source.h"

#include <algorithm>

namespace sb {

TimePoint ManualTimeSource::now() const {
  std::lock_guard lock(mu_);
  return now_;
}

void ManualTimeSource::advance(Nanos by) {
  std::unique_lock lock(mu_);
  const TimePoint to = now_ + by;
  lock.unlock();
  advance_to(to);
}

void ManualTimeSource::advance_to(TimePoint t) {
  {
    std::lock_guard lock(mu_);
    if (t <= now_) return;
    now_ = t;
  }
  moved_.notify_all();
}

bool ManualTimeSource::wait_for_sleepers(int n, Nanos limit) const {
  std::unique_lock lock(mu_);
  return asleep_cv_.wait_for(lock, limit, [&] { return asleep_locked() >= n; });
}

int ManualTimeSource::sleepers() const {
  std::lock_guard lock(mu_);
  return asleep_locked();
}

int ManualTimeSource::asleep_locked() const {
  return static_cast<int>(std::count_if(asleep_.begin(), asleep_.end(), [&](const auto& a) {
    return !a.first->woken_ && a.second > now_;
  }));
}

bool ManualTimeSource::sleep_until(Sleeper& s, TimePoint deadline) const {
  std::unique_lock lock(mu_);
  if (!s.woken_ && now_ < deadline) {
    asleep_.emplace_back(&s, deadline);
    asleep_cv_.notify_all();
    moved_.wait(lock, [&] { return s.woken_ || now_ >= deadline; });
    asleep_.erase(std::find(asleep_.begin(), asleep_.end(),
                            std::pair<const Sleeper*, TimePoint>(&s, deadline)));
  }
  const bool woken = s.woken_;
  s.woken_ = false;
  return woken;
}

void ManualTimeSource::wake(Sleeper& s) const {
  {
    std::lock_guard lock(mu_);
    s.woken_ = true;
  }
  moved_.notify_all();
}

}  // namespace sb
