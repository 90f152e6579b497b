#include "common/time_source.h"

namespace sb {

class SteadyTimeSource final : public TimeSource {
 public:
  TimePoint now() const override { return Clock::now(); }

 private:
  bool sleep_until(Sleeper& s, TimePoint deadline) const override {
    std::unique_lock lock(s.mu_);
    s.cv_.wait_until(lock, deadline, [&] { return s.woken_; });
    const bool woken = s.woken_;
    s.woken_ = false;
    return woken;
  }
  void wake(Sleeper& s) const override {
    {
      std::lock_guard lock(s.mu_);
      s.woken_ = true;
    }
    s.cv_.notify_all();
  }
};

const TimeSource& steady_time_source() {
  static const SteadyTimeSource* source = new SteadyTimeSource;  // outlives every static user
  return *source;
}

}  // namespace sb
