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
// returns not_done, so it stays queued and the reactor never re-arms anything for it). It ends
// only when cancelled (detach), when the socket closes or when the reactor shuts down; then it
// is deleted. Its block holds all the Waiter's state an edge needs.
struct EdgeOp : asio::detail::reactor_op {
  EdgeOp(Waiter* w, ReadinessService* s, const asio::any_io_executor& ex, int descriptor,
         Reactor::per_descriptor_data data)
      : reactor_op(error_code{}, &EdgeOp::perform_edge, &EdgeOp::end),
        waiter(w),
        service(s),
        executor(ex),
        fd(descriptor),
        reactor_data(data) {}

  Waiter* waiter;  // null once orphaned (detach): it then only waits to be deleted
  Waiter::State state;
  ReadinessService* service;
  asio::any_io_executor executor;
  int fd;
  Reactor::per_descriptor_data reactor_data;  // the socket's, in the reactor

  static status perform_edge(reactor_op* base) {
    auto* op = static_cast<EdgeOp*>(base);
    if (op->waiter) op->on_edge();
    return not_done;
  }

  void on_edge() {
    if (state.handler.empty()) {
      state.ready = true;
      return;
    }
    if (state.hook && state.hook(state.hook_ctx)) return;
    complete({});
  }
  void on_hang_up() {
    state.hung_up = true;
    on_edge();
  }
  void complete(const error_code& ec) {
    service->wait_ended();
    state.handler.post(executor, ec);
  }

  // Lets go of the Waiter (detach, or the end below): the fd leaves the hang-up watch and a
  // pending wait completes with `ec`.
  void orphan(const error_code& ec) {
    service->remove(fd);
    if (!state.handler.empty()) complete(ec);
    state.hook = nullptr;
    waiter->op_ = nullptr;
    waiter->state_ = nullptr;
    waiter = nullptr;
  }

  // owner: the scheduler, or null when it destroys the operation without completing it (it is
  // shutting down). The scheduler counts a completion as work done; this operation was never
  // counted as work (Waiter::attach_registered), so the count is made good first. Still
  // attached here: the socket closed without detach(), or the reactor refused the operation.
  // The reason is the operation's own (ec_: aborted, or why the reactor refused it); the
  // scheduler's argument is not.
  static void end(void* owner, asio::detail::operation* base, const error_code&, size_t) {
    auto* op = static_cast<EdgeOp*>(base);
    if (owner) static_cast<Scheduler*>(owner)->compensating_work_started();
    // Shutting down: a pending handler is destroyed, not run; destroying it may destroy the
    // Waiter too (whatever owned it), which orphans this operation.
    if (!owner && op->waiter) op->state.handler.reset();
    if (op->waiter) op->orphan(op->ec_ ? op->ec_ : asio::error::operation_aborted);
    delete op;
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

bool ReadinessService::add(int fd, EdgeOp* op) {
  if (epoll_fd_ < 0 || shut_down_) return false;
  epoll_event ev{};
  ev.events = EPOLLRDHUP | EPOLLET;  // hang-ups only (EPOLLHUP and EPOLLERR always count)
  ev.data.ptr = op;
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
  // Drain the set's ready list. No handler runs in here (EdgeOp::on_hang_up posts, and a
  // ready hook touches only its own connection), so every operation harvested stays valid through
  // the loop.
  epoll_event events[256];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 256, 0);
    for (int i = 0; i < n; ++i) static_cast<EdgeOp*>(events[i].data.ptr)->on_hang_up();
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
  auto op = std::make_unique<EdgeOp>(this, &service, executor, fd,
                                     static_cast<Reactor::per_descriptor_data>(reactor_data));
  if (!service.add(fd, op.get())) return false;
  op_ = op.release();
  state_ = &op_->state;
  // Not speculative: nothing is performed now (one epoll_ctl re-arms the socket, once).
  asio::use_service<Reactor>(context).start_op(Reactor::read_op, fd, op_->reactor_data, op_, false,
                                               false);
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
  if (!op_) return;
  EdgeOp* op = op_;
  op->orphan(asio::error::operation_aborted);
  // The operation leaves the socket's queue, posted as aborted: it deletes itself then.
  auto& context = asio::query(op->executor, asio::execution::context);
  asio::use_service<Reactor>(context).cancel_ops(op->fd, op->reactor_data);
}

void Waiter::start_wait() {
  op_->service->wait_started(op_->executor);
}

}  // namespace sb::net
