#include "engine/loop_lag.h"

#include <thread>

namespace sb::engine {

LoopLagProbe::LoopLagProbe(asio::io_context& io, Nanos stall) : timer_(io), stall_(stall) {}

void LoopLagProbe::start() {
  running_ = true;
  due_ = Clock::now() + kTick;
  arm();
}

void LoopLagProbe::stop() {
  running_ = false;
  timer_.cancel();
}

void LoopLagProbe::arm() {
  timer_.expires_at(due_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !running_) return;
    const TimePoint now = Clock::now();
    const Nanos lag = now - due_;
    ++stats_.ticks;
    if (lag > kLateThreshold) ++stats_.late_ticks;
    if (lag > stats_.max_lag) stats_.max_lag = lag;
    due_ = now + kTick;  // the next tick counts from now: one late tick is one lag
    arm();
    // The test seam: another handler that keeps the loop busy, as a slow callback would.
    if (stall_ > Nanos{0})
      asio::post(timer_.get_executor(), [stall = stall_] { std::this_thread::sleep_for(stall); });
  });
}

}  // namespace sb::engine
