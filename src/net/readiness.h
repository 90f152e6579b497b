#pragma once
// Waiting for a plain-TCP socket to become readable at no system call of its own: the
// socket's edges come from the epoll set that Asio's event loop already waits on.
//
// Asio 1.74's own wait (socket::async_wait) re-arms the socket in epoll (epoll_ctl) every
// time it starts, and a read operation first tries a read that fails with EAGAIN. A Waiter
// instead keeps one operation of its own queued on the socket in Asio's reactor while it is
// attached (Waiter's EdgeOp, readiness.cc): the reactor calls it on every edge (the socket is
// registered edge-triggered there since it was opened), it never finishes by itself, and it is
// never re-armed. An event loop wake-up then costs one epoll_wait for every socket at once, as
// in a hand-written epoll reader, plus the reads.
//
// What that set does not say is a hang-up that came with the last bytes (the reactor's
// registration has no EPOLLRDHUP, and the operation is not told which events fired): a short
// read would then look like an empty socket, and no edge would follow. A ReadinessService per
// event loop watches its sockets for hang-ups only (EPOLLRDHUP, edge-triggered, in an epoll set
// of its own that Asio waits on while a Waiter waits): a hang-up sets hung_up() and counts as
// an edge. Plain bytes never wake that set (the kernel filters them by its event mask).
//
// Contract: one ReadinessService per io_context, which only one thread runs (one worker, one
// event loop). A Waiter is attached while its socket is open and detached before the socket
// closes (after the close, its number and the reactor's state may belong to another socket).
// While a Waiter is attached, nothing else waits to read on its socket: the reactor performs a
// socket's read operations in order and stops at the first not done, which the Waiter's always
// is (an async_read_some or async_wait(wait_read) queued behind it would never complete). The
// reactor interface used is Asio's detail API, checked for Asio 1.18 (Boost 1.74).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/asio/basic_socket.hpp>
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
  // call_ first: empty() is what an edge reads, beside the waiter's hook (Waiter::State).
  void (*call_)(void*, const asio::any_io_executor*, const error_code&) = nullptr;
  alignas(std::max_align_t) unsigned char storage_[kBytes];
};

class ReadinessService;
struct EdgeOp;

// The readiness of one socket.
class Waiter {
 public:
  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;
  ~Waiter();

  // Starts watching `socket` (open, non-blocking, registered in its executor's reactor, as
  // every open Asio socket is). False when that fails: the caller then waits in another way.
  template <typename Protocol, typename Executor>
  bool attach(asio::basic_socket<Protocol, Executor>& socket) {
    return attach_registered(socket.get_executor(), socket.native_handle(),
                             ReactorDataAccess<Protocol, Executor>::of(socket));
  }
  // Stops watching; a pending wait completes with operation_aborted. Call before closing the
  // socket. Cancels every operation queued on the socket in the reactor (it is about to close).
  void detach();
  bool attached() const { return state_ != nullptr; }

  // Whether the socket signalled new bytes since the last take_ready().
  bool take_ready() { return state_ && std::exchange(state_->ready, false); }
  // Whether the peer closed or reset: then a read never blocks, and a short read does not
  // mean that nothing is left (the end of the stream still is). Known from the hang-up watch,
  // which may report it after the edge of the bytes that came with it; that report is an edge.
  bool hung_up() const { return state_ && state_->hung_up; }

  // While set (hook non-null): on an edge with a wait pending, hook(ctx) runs first, from
  // inside the event loop's reactor. True: it took the new bytes itself and the wait goes on
  // (the waiting coroutine is not resumed); false: the wait completes as usual. A hook must
  // not attach, detach or destroy any Waiter, start or cancel an operation on its socket, nor
  // run handlers. Precondition for a non-null hook: attached(); detach() clears it.
  void set_ready_hook(bool (*hook)(void*), void* ctx) {
    if (!state_) return;
    state_->hook = hook;
    state_->hook_ctx = ctx;
  }

  // Completes when the socket signals new bytes (edge-triggered: bytes that were
  // waiting before the last read that emptied the socket do not count), or with
  // operation_aborted on detach(). Precondition: attached(), no wait pending.
  template <typename Token>
  auto async_wait(Token&& token) {
    return asio::async_initiate<Token, void(error_code)>(
        [this](auto handler) {
          state_->handler.emplace(std::move(handler));
          start_wait();
        },
        token);
  }

  // What an edge touches, kept in the block of the Waiter's operation in the reactor (one
  // cache line's reach from it, at thousands of sockets).
  struct State {  // what an edge reads first (one cache line with the handler's empty())
    bool (*hook)(void*) = nullptr;
    void* hook_ctx = nullptr;
    bool ready = false;
    bool hung_up = false;
    PendingHandler handler;
  };

 private:
  // The socket's per-descriptor data in the reactor (a protected member of basic_socket,
  // reached through a pointer to member formed in a derived class, which the language allows).
  template <typename Protocol, typename Executor>
  struct ReactorDataAccess : asio::basic_socket<Protocol, Executor> {
    static void* of(asio::basic_socket<Protocol, Executor>& socket) {
      auto& impl = socket.*(&ReactorDataAccess::impl_);
      return impl.get_implementation().reactor_data_;
    }
  };

  friend struct EdgeOp;
  bool attach_registered(const asio::any_io_executor& executor, int fd, void* reactor_data);
  void start_wait();

  EdgeOp* op_ = nullptr;    // queued on the socket while attached; owns *state_
  State* state_ = nullptr;  // &op_->state, for the templates above (EdgeOp is readiness.cc's)
};

// An event loop's hang-up watch (see the top of this file), and what keeps the loop running
// while a Waiter waits: its wait on the watch set is outstanding exactly while some Waiter's
// wait is pending (a Waiter's EdgeOp is not work of the loop's).
class ReadinessService : public asio::execution_context::service {
 public:
  using key_type = ReadinessService;
  static asio::execution_context::id id;

  explicit ReadinessService(asio::execution_context& context);
  ~ReadinessService() override;

  // Watches fd (open) for a hang-up, reported to `op`. False when epoll refuses.
  bool add(int fd, EdgeOp* op);
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
