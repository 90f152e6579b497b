#include "net/readiness.h"

#include <sys/epoll.h>
#include <unistd.h>

namespace sb::net {

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
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
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
  // Drain the set's ready list. No handler runs in here (Waiter::on_ready posts, and a ready
  // hook touches only its own connection), so every Waiter pointer harvested stays valid
  // through the loop.
  epoll_event events[256];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 256, 0);
    for (int i = 0; i < n; ++i)
      static_cast<Waiter*>(events[i].data.ptr)->on_ready(events[i].events);
    if (n < 256) return;
  }
}

Waiter::~Waiter() {
  detach();
}

bool Waiter::attach(const asio::any_io_executor& executor, int fd) {
  detach();
  auto& service =
      asio::use_service<ReadinessService>(asio::query(executor, asio::execution::context));
  if (!service.add(fd, this)) return false;
  service_ = &service;
  executor_ = executor;
  fd_ = fd;
  ready_ = false;
  hung_up_ = false;
  return true;
}

void Waiter::detach() {
  if (!service_) return;
  service_->remove(fd_);
  if (!handler_.empty()) {
    service_->wait_ended();
    handler_.post(executor_, asio::error::operation_aborted);
  }
  service_ = nullptr;
  fd_ = -1;
  ready_ = false;
  hung_up_ = false;
  hook_ = nullptr;
  hook_ctx_ = nullptr;
}

void Waiter::start_wait() {
  service_->wait_started(executor_);
}

void Waiter::on_ready(uint32_t epoll_events) {
  if (epoll_events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) hung_up_ = true;
  if (handler_.empty()) {
    ready_ = true;
    return;
  }
  if (hook_ && hook_(hook_ctx_)) return;
  service_->wait_ended();
  handler_.post(executor_, error_code{});
}

}  // namespace sb::net
