#pragma once
// One timer per simulator connection that cancels the socket's pending operations once a
// deadline passes: the idle timeout while waiting for a request, the read timeout while one
// arrives, the bound of a never_respond fault (SimServerLimits). The deadline may move at
// will; the timer wakes at its own expiry and only then compares (as net/connection.cc does).
// The socket, the watchdog and the session's coroutine share one single-threaded executor.
#include <memory>

#include "common/beast.h"
#include "common/clock.h"

namespace sb::sim {

class SessionWatchdog {
 public:
  explicit SessionWatchdog(asio::ip::tcp::socket& sock);
  ~SessionWatchdog();
  SessionWatchdog(const SessionWatchdog&) = delete;
  SessionWatchdog& operator=(const SessionWatchdog&) = delete;

  // Cancels the socket's operations `after` from now (a zero or negative duration: never);
  // clears fired().
  void arm(Nanos after);
  void disarm();
  // The deadline passed and the socket's operations were cancelled.
  bool fired() const;

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the timer's handler
};

}  // namespace sb::sim
