#include "net/rx_timestamp.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace sb::net {

bool enable_rx_timestamps(int fd) {
  const int on = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

RxStampingHold::RxStampingHold() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
  if (fd_ >= 0) enable_rx_timestamps(fd_);
}

RxStampingHold::~RxStampingHold() {
  if (fd_ >= 0) ::close(fd_);
}

TimePoint steady_arrival(long long stamp_real_ns, long long real_now_ns, TimePoint steady_now) {
  const long long lag_ns = real_now_ns - stamp_real_ns;
  if (lag_ns <= 0) return steady_now;
  return steady_now - Nanos(lag_ns);
}

RxResult recv_timestamped(int fd, void* buffer, size_t length) {
  iovec iov{buffer, length};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  RxResult r;
  // The system call itself, not glibc's recvmsg(): that wrapper is a thread cancellation point
  // and pays two atomic operations a call to be one (about as much user time as the rest of
  // this function); no servebench thread is ever cancelled.
  r.bytes = ::syscall(SYS_recvmsg, fd, &msg, MSG_DONTWAIT);
  // Realtime before steady, back to back: the lag (realtime now - stamp) then ends no later
  // than the steady reading it is taken from, so an arrival is never earlier than the truth
  // (read the other way round, with the stamp's parsing between them, an arrival came out
  // early by that time: 2.3 us under ASan, before the server's write).
  if (r.bytes <= 0) {  // an error, EAGAIN or the peer's end: no data to stamp
    if (r.bytes < 0) r.error = errno;
    r.arrived = Clock::now();
    return r;
  }
  timespec real_now{};
  ::clock_gettime(CLOCK_REALTIME, &real_now);
  const TimePoint steady_now = Clock::now();
  r.arrived = steady_now;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec stamp;
    std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
    if (stamp.tv_sec == 0 && stamp.tv_nsec == 0) break;  // no stamp on this segment
    r.arrived = steady_arrival(stamp.tv_sec * 1'000'000'000LL + stamp.tv_nsec,
                               real_now.tv_sec * 1'000'000'000LL + real_now.tv_nsec, steady_now);
    r.kernel_stamp = true;
    r.lag = steady_now - r.arrived;
  }
  return r;
}

}  // namespace sb::net
