#pragma once
// One request's mailbox between the Engine thread and the connection's coroutine: the engine
// posts its admission verdicts and events into it (on the connection's executor); the
// coroutine takes them out in order. One mailbox may listen to several engine requests (a
// pooling request's items, sim/pooling_handler.cc).
#include <deque>
#include <memory>

#include <boost/asio/redirect_error.hpp>

#include "common/asio.h"
#include "sim/engine.h"

namespace sb::sim {

struct MailItem {
  bool admission = false;
  Admission verdict = Admission::accepted;
  SchedEvent event;
};

class EngineMailbox final : public EngineListener,
                            public std::enable_shared_from_this<EngineMailbox> {
 public:
  explicit EngineMailbox(const asio::any_io_executor& ex) : ex_(ex), signal_(ex) {}
  void on_admission(Admission a) override { deliver(MailItem{true, a, {}}); }
  void on_event(const SchedEvent& e) override { deliver(MailItem{false, Admission::accepted, e}); }

  awaitable<MailItem> next() {
    while (items_.empty()) {
      signal_.expires_at(TimePoint::max());
      boost::system::error_code ec;
      co_await signal_.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    MailItem it = items_.front();
    items_.pop_front();
    co_return it;
  }

 private:
  // Inline when the engine runs on the connection's own context (a one-thread server): no
  // allocation and no queue entry per token; posted across threads otherwise.
  void deliver(const MailItem& it) {
    asio::dispatch(ex_, [self = shared_from_this(), it] {
      self->items_.push_back(it);
      self->signal_.cancel();
    });
  }
  asio::any_io_executor ex_;
  asio::steady_timer signal_;
  std::deque<MailItem> items_;
};

}  // namespace sb::sim
