#pragma once
// Waiting for a plain-TCP socket to become readable at one system call per
// event: the read itself. Asio 1.74 pays two more per wait: async_wait re-arms
// the socket in epoll (epoll_ctl), and a read operation first tries a read that
// fails with EAGAIN. Here each socket is registered once, edge-triggered, in an
// epoll set of its event loop's own (a ReadinessService); the event loop waits on
// that set, and one epoll_wait harvests the readiness of every socket at once.
//
// Contract: one ReadinessService per io_context, which only one thread runs (one
// worker, one event loop). A Waiter is registered while its socket is open and
// deregistered before the socket closes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/asio/posix/stream_descriptor.hpp>

#include "common/asio.h"

namespace sb::net {

using boost::system::error_code;

// One pending completion handler of signature void(error_code), move-only,
// stored in place (the handlers of awaitable operations are small) and completed
// by posting it, never by calling it from the code that completes it.
class PendingHandler {
 public:
  PendingHandler() = default;
  PendingHandler(const PendingHandler&) = delete;
  PendingHandler& operator=(const PendingHandler&) = delete;
  ~PendingHandler() { reset(); }

  bool empty() const { return call_ == nullptr; }

  template <typename Handler>
  void emplace(Handler&& handler) {
    using H = std::decay_t<Handler>;
    static_assert(sizeof(H) <= kBytes && alignof(H) <= alignof(std::max_align_t),
                  "handler too large for PendingHandler");
    reset();
    new (storage_) H(std::forward<Handler>(handler));
    call_ = [](void* p, const asio::any_io_executor* ex, const error_code& ec) {
      H& stored = *static_cast<H*>(p);
      if (ex == nullptr) {  // destroy without invoking
        stored.~H();
        return;
      }
      H local(std::move(stored));
      stored.~H();
      asio::post(*ex, [h = std::move(local), ec]() mutable { h(ec); });
    };
  }

  // Empties this holder and posts the handler, with `ec`, to `executor`.
  void post(const asio::any_io_executor& executor, const error_code& ec) {
    auto call = std::exchange(call_, nullptr);
    if (call) call(storage_, &executor, ec);
  }

  void reset() {
    auto call = std::exchange(call_, nullptr);
    if (call) call(storage_, nullptr, error_code{});
  }

 private:
  static constexpr size_t kBytes = 96;
  alignas(std::max_align_t) unsigned char storage_[kBytes];
  void (*call_)(void*, const asio::any_io_executor*, const error_code&) = nullptr;
};

class ReadinessService;

// The readiness of one socket.
class Waiter {
 public:
  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;
  ~Waiter();

  // Registers `fd` (open, non-blocking) in the epoll set of `executor`'s event loop.
  // False when epoll refuses: the caller then waits in another way.
  bool attach(const asio::any_io_executor& executor, int fd);
  // Deregisters; a pending wait completes with operation_aborted. Call before closing the fd.
  void detach();
  bool attached() const { return service_ != nullptr; }

  // Whether the socket signalled new bytes since the last take_ready().
  bool take_ready() { return std::exchange(ready_, false); }
  // Whether the peer closed or reset: then a read never blocks, and a short read
  // does not mean that nothing is left (the end of the stream still is).
  bool hung_up() const { return hung_up_; }

  // While set (hook non-null): on readiness with a wait pending, hook(ctx) runs first, from
  // the event loop's harvest. True: it took the new bytes itself and the wait goes on (the
  // waiting coroutine is not resumed); false: the wait completes as usual. A hook must not
  // attach, detach or destroy any Waiter, nor run handlers.
  void set_ready_hook(bool (*hook)(void*), void* ctx) {
    hook_ = hook;
    hook_ctx_ = ctx;
  }

  // Completes when the socket signals new bytes (edge-triggered: bytes that were
  // waiting before the last read that emptied the socket do not count), or with
  // operation_aborted on detach(). Precondition: attached(), no wait pending.
  template <typename Token>
  auto async_wait(Token&& token) {
    return asio::async_initiate<Token, void(error_code)>(
        [this](auto handler) {
          handler_.emplace(std::move(handler));
          start_wait();
        },
        token);
  }

 private:
  friend class ReadinessService;
  void start_wait();
  void on_ready(uint32_t epoll_events);

  ReadinessService* service_ = nullptr;
  asio::any_io_executor executor_;
  int fd_ = -1;
  bool ready_ = false;
  bool hung_up_ = false;
  bool (*hook_)(void*) = nullptr;
  void* hook_ctx_ = nullptr;
  PendingHandler handler_;
};

class ReadinessService : public asio::execution_context::service {
 public:
  using key_type = ReadinessService;
  static asio::execution_context::id id;

  explicit ReadinessService(asio::execution_context& context);
  ~ReadinessService() override;

  bool add(int fd, Waiter* waiter);
  void remove(int fd);
  void wait_started(const asio::any_io_executor& executor);
  void wait_ended();

 private:
  void shutdown() override;
  void arm(const asio::any_io_executor& executor);
  void on_armed_wake(const asio::any_io_executor& executor);
  void harvest();

  int epoll_fd_ = -1;
  bool descriptor_owns_fd_ = false;
  std::unique_ptr<asio::posix::stream_descriptor> descriptor_;
  size_t pending_waits_ = 0;  // Waiters with a pending async_wait
  bool armed_ = false;        // a wait on the epoll set is outstanding
  bool shut_down_ = false;
};

}  // namespace sb::net
