#include "sim/session_watchdog.h"

#include "sim/warning_pragmas.h"

namespace sb::sim {

struct SessionWatchdog::State : std::enable_shared_from_this<State> {
  explicit State(asio::ip::tcp::socket& s) : sock(&s), timer(s.get_executor()) {}

  asio::ip::tcp::socket* sock;  // null once the watchdog is gone
  asio::steady_timer timer;
  TimePoint deadline = TimePoint::max();
  TimePoint timer_expiry = TimePoint::max();
  bool timer_armed = false;
  bool fired = false;

  void wake_at(TimePoint t) {
    if (timer_armed && timer_expiry <= t) return;  // wakes no later than needed
    timer_expiry = t;
    timer_armed = true;
    timer.expires_at(t);
    timer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (!self || ec == asio::error::operation_aborted) return;  // gone, or re-armed earlier
      self->on_timer();
    });
  }

  void on_timer() {
    timer_armed = false;
    if (!sock || deadline == TimePoint::max()) return;
    if (Clock::now() < deadline) {
      wake_at(deadline);  // moved later meanwhile
      return;
    }
    fired = true;
    deadline = TimePoint::max();
    boost::system::error_code ignored;
    sock->cancel(ignored);
  }
};

SessionWatchdog::SessionWatchdog(asio::ip::tcp::socket& sock)
    : state_(std::make_shared<State>(sock)) {}

SessionWatchdog::~SessionWatchdog() {
  state_->sock = nullptr;
  state_->timer.cancel();
}

void SessionWatchdog::arm(Nanos after) {
  state_->fired = false;
  if (after <= Nanos::zero()) {
    disarm();
    return;
  }
  state_->deadline = Clock::now() + after;
  state_->wake_at(state_->deadline);
}

void SessionWatchdog::disarm() {
  state_->deadline = TimePoint::max();  // a pending wake finds nothing to do
}

bool SessionWatchdog::fired() const {
  return state_->fired;
}

}  // namespace sb::sim
