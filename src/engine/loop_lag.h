#pragma once
// How late a worker's event loop runs: a timer due every kTick fires late by however long the
// loop was busy (or its thread was off the CPU). A client whose loop is often late delays its
// reads and sends; kernel receive stamps keep the token times true (net/rx_timestamp.h), but
// sends, timeouts and the next request's start slip (docs/metrics.md, "Client health").
#include <cstdint>

#include "common/asio.h"
#include "common/clock.h"

namespace sb::engine {

// Tick counts merge by addition, max_lag by max (per worker, merged after join).
struct LoopLagStats {
  int64_t ticks = 0;
  int64_t late_ticks = 0;  // fired more than kLateThreshold after their due time
  Nanos max_lag{0};
  void merge(const LoopLagStats& o) {
    ticks += o.ticks;
    late_ticks += o.late_ticks;
    if (o.max_lag > max_lag) max_lag = o.max_lag;
  }
};

class LoopLagProbe {
 public:
  static constexpr Nanos kTick = std::chrono::milliseconds(10);
  // Late enough to matter: a busy loop, not the scheduler's usual wake-up jitter on a shared
  // machine (1-2 ms ticks are common on a loaded 2-core VM with nothing wrong).
  static constexpr Nanos kLateThreshold = std::chrono::milliseconds(5);

  // stall: a test seam, 0 in every real run: after each tick a handler blocks the loop this
  // long (a deliberately slow client).
  LoopLagProbe(asio::io_context& io, Nanos stall = Nanos{0});
  void start();  // on the loop's thread, or before the loop runs
  void stop();   // on the loop's thread: the pending tick is cancelled and none is armed
  // Read after the loop has stopped.
  const LoopLagStats& stats() const { return stats_; }

 private:
  void arm();
  asio::steady_timer timer_;
  Nanos stall_;
  TimePoint due_;
  bool running_ = false;
  LoopLagStats stats_;
};

}  // namespace sb::engine
