#pragma once
// Kernel receive timestamps for plain-TCP reads. The arrival time of a token is
// the instant its bytes reached our socket, not the instant a busy event loop got
// round to reading them: with SO_TIMESTAMPNS the kernel stamps each segment on
// receipt (CLOCK_REALTIME), and recv_timestamped() maps that stamp onto the run's
// steady clock by subtracting the measured lag (realtime now - stamp) from
// steady now. The lag, not the absolute realtime, crosses clocks, so a realtime
// step between two reads cannot move arrivals (only a step during one read can).
#include <sys/types.h>

#include <cstddef>

#include "common/clock.h"

namespace sb::net {

// Linux switches receive stamping on system-wide lazily (a deferred static key)
// when the first socket asks for it, and off again when the last such socket
// closes: segments received in between carry no stamp. Holding one stamping
// socket (UDP, never used) from before the run's first connection to its end
// keeps every read of the run stamped.
class RxStampingHold {
 public:
  RxStampingHold();
  ~RxStampingHold();
  RxStampingHold(const RxStampingHold&) = delete;
  RxStampingHold& operator=(const RxStampingHold&) = delete;

 private:
  int fd_ = -1;
};

// Asks the kernel to stamp received data on this socket. False when refused
// (arrivals then fall back to the time the read returned).
bool enable_rx_timestamps(int fd);

struct RxResult {
  ssize_t bytes = 0;  // as recvmsg: > 0 data, 0 orderly shutdown, < 0 error (errno in error)
  int error = 0;
  TimePoint arrived;          // steady-clock arrival of the newest bytes read
  bool kernel_stamp = false;  // arrived came from the kernel's stamp (else: the read's return)
  Nanos lag{0};  // the read's return minus arrived: how long the newest bytes waited to be read
};

// One non-blocking recvmsg (MSG_DONTWAIT). On EAGAIN: bytes < 0, error == EAGAIN.
// Linux stamps a TCP read with the newest segment it consumed, so when several
// events are coalesced into one read, all of them get the latest arrival: never
// earlier than the truth.
RxResult recv_timestamped(int fd, void* buffer, size_t length);

// The pure conversion: the steady time at which a segment stamped `stamp_real_ns`
// arrived, given realtime and steady readings taken together after the read.
// A stamp in the future (clock step) yields steady_now (lag clamped at zero).
TimePoint steady_arrival(long long stamp_real_ns, long long real_now_ns, TimePoint steady_now);

}  // namespace sb::net
