#include "net/readiness.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <type_traits>

#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/detail/scheduler.hpp>
#include <boost/asio/version.hpp>

// The reactor calls below (start_op, cancel_ops, reactor_op, the scheduler's work count) are
// Asio's detail interface as of Asio 1.18 (Boost 1.74, Debian 12); later versions changed
// start_op. Porting means checking epoll_reactor::start_op and descriptor_state::perform_io.
#if BOOST_ASIO_VERSION / 100 != 1018
#error "net/readiness.cc uses Asio 1.18's reactor interface (Boost 1.74); check it for this Asio"
#endif

namespace sb::net {

using Reactor = asio::detail::reactor;
using Scheduler = asio::detail::scheduler;

// The Waiter's operation in the reactor: queued on its socket as a read operation, performed
// on every edge of the socket (descriptor_state::perform_io), never done by itself (perform
// returns not_done, so it stays queued and the reactor never re-arms anything for it). It
// ends only when cancelled (detach), when the socket closes or the reactor shuts down; then it
// is deleted, and tells its Waiter if it still has one.
struct EdgeOp : asio::detail::reactor_op {
  explicit EdgeOp(Waiter* w)
      : reactor_op(error_code{}, &EdgeOp::perform_edge, &EdgeOp::end), waiter(w) {}

  Waiter* waiter;  // null once the Waiter let go of it (detach)

  static status perform_edge(reactor_op* base) {
    auto* op = static_cast<EdgeOp*>(base);
    if (op->waiter) op->waiter->on_edge();
    return not_done;
  }
  // owner: the scheduler, or null when it destroys the operation without completing it (it is
  // shutting down). The scheduler counts a completion as work done; this operation was never
  // counted as work (Waiter::attach_registered), so the count is made good first.
  static void end(void* owner, asio::detail::operation* base, const error_code& ec, size_t) {
    auto* op = static_cast<EdgeOp*>(base);
    Waiter* w = op->waiter;
    delete op;
    if (!owner) {
      if (w) w->op_ = nullptr;
      return;
    }
    static_cast<Scheduler*>(owner)->compensating_work_started();
    if (w) w->on_op_dropped(ec ? ec : asio::error::operation_aborted);
  }
};

asio::execution_context::id ReadinessService::id;

ReadinessService::ReadinessService(asio::execution_context& context)
    : asio::execution_context::service(context), epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {}

ReadinessService::~ReadinessService() {
  if (epoll_fd_ >= 0 && !descriptor_owns_fd_) ::close(epoll_fd_);
}

// The descriptor goes now, while every service still exists: Asio may have created
// the descriptor service after this one, and destroys services newest first.
void ReadinessService::shutdown() {
  shut_down_ = true;
  descriptor_.reset();  // closes epoll_fd_ when it owns it
}

bool ReadinessService::add(int fd, Waiter* waiter) {
  if (epoll_fd_ < 0 || shut_down_) return false;
  epoll_event ev{};
  ev.events = EPOLLRDHUP | EPOLLET;  // hang-ups only (EPOLLHUP and EPOLLERR always count)
  ev.data.ptr = waiter;
  return ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

void ReadinessService::remove(int fd) {
  if (shut_down_) return;  // the set is closed (its number may belong to another file now)
  epoll_event ev{};
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, &ev);
}

void ReadinessService::wait_started(const asio::any_io_executor& executor) {
  ++pending_waits_;
  if (!armed_) arm(executor);
}

void ReadinessService::wait_ended() {
  // With no waiter left, an outstanding wait on the set would keep the event loop
  // running: cancel it (its handler sees operation_aborted and does not re-arm).
  if (--pending_waits_ == 0 && armed_ && descriptor_) {
    error_code ignored;
    descriptor_->cancel(ignored);
  }
}

void ReadinessService::arm(const asio::any_io_executor& executor) {
  if (!descriptor_) {
    // The descriptor owns epoll_fd_ from now on (it closes it on destruction).
    descriptor_ = std::make_unique<asio::posix::stream_descriptor>(executor, epoll_fd_);
    descriptor_owns_fd_ = true;
  }
  armed_ = true;
  descriptor_->async_wait(asio::posix::stream_descriptor::wait_read,
                          [this, executor](const error_code&) { on_armed_wake(executor); });
}

void ReadinessService::on_armed_wake(const asio::any_io_executor& executor) {
  armed_ = false;
  if (shut_down_) return;
  harvest();
  if (pending_waits_ > 0) arm(executor);
}

void ReadinessService::harvest() {
  // Drain the set's ready list. No handler runs in here (Waiter::on_hang_up posts, and a
  // ready hook touches only its own connection), so every Waiter pointer harvested stays valid
  // through the loop.
  epoll_event events[256];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 256, 0);
    for (int i = 0; i < n; ++i) static_cast<Waiter*>(events[i].data.ptr)->on_hang_up();
    if (n < 256) return;
  }
}

Waiter::~Waiter() {
  detach();
}

bool Waiter::attach_registered(const asio::any_io_executor& executor, int fd, void* reactor_data) {
  static_assert(std::is_pointer_v<Reactor::per_descriptor_data>);
  detach();
  if (fd < 0 || reactor_data == nullptr) return false;
  auto& context = asio::query(executor, asio::execution::context);
  auto& service = asio::use_service<ReadinessService>(context);
  if (!service.add(fd, this)) return false;
  auto& reactor = asio::use_service<Reactor>(context);
  auto data = static_cast<Reactor::per_descriptor_data>(reactor_data);
  service_ = &service;
  reactor_ = &reactor;
  reactor_data_ = reactor_data;
  executor_ = executor;
  fd_ = fd;
  ready_ = false;
  hung_up_ = false;
  // Not speculative: nothing is performed now (one epoll_ctl re-arms the socket, once).
  op_ = new EdgeOp(this);
  reactor.start_op(Reactor::read_op, fd, data, op_, false, false);
  // The operation is not work of the event loop's (it never ends by itself; a pending wait is
  // what keeps the loop running, through the service): the count start_op added is taken back.
  // Inside one of the loop's handlers the count stays above zero while doing so (the handler
  // counts); elsewhere it is taken back from a handler, so that the loop is not stopped.
  auto& scheduler = asio::use_service<Scheduler>(context);
  if (scheduler.can_dispatch())  // this thread runs the loop
    scheduler.work_finished();
  else
    asio::post(executor, [&scheduler] { scheduler.work_finished(); });
  return true;
}

void Waiter::detach() {
  if (fd_ < 0) return;
  if (op_) {
    op_->waiter = nullptr;  // it ends on its own now (posted, aborted), deleting itself
    op_ = nullptr;
    auto data = static_cast<Reactor::per_descriptor_data>(reactor_data_);
    static_cast<Reactor*>(reactor_)->cancel_ops(fd_, data);
  }
  service_->remove(fd_);
  if (!handler_.empty()) complete(asio::error::operation_aborted);
  service_ = nullptr;
  reactor_ = nullptr;
  reactor_data_ = nullptr;
  fd_ = -1;
  ready_ = false;
  hung_up_ = false;
  hook_ = nullptr;
  hook_ctx_ = nullptr;
}

void Waiter::start_wait() {
  service_->wait_started(executor_);
}

void Waiter::complete(const error_code& ec) {
  service_->wait_ended();
  handler_.post(executor_, ec);
}

void Waiter::on_edge() {
  if (handler_.empty()) {
    ready_ = true;
    return;
  }
  if (hook_ && hook_(hook_ctx_)) return;
  complete({});
}

void Waiter::on_hang_up() {
  hung_up_ = true;
  on_edge();
}

void Waiter::on_op_dropped(const error_code& ec) {
  op_ = nullptr;
  if (!handler_.empty()) complete(ec);
}

}  // namespace sb::net
