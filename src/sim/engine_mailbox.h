#pragma once
// One request's mailbox between the Engine thread and the connection's coroutine: the engine
// posts its admission verdicts and events into it (on the connection's executor); the
// coroutine takes them out in order. One mailbox may listen to several engine requests (a
// pooling request's items, sim/pooling_handler.cc).
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <boost/asio/redirect_error.hpp>

#include "common/asio.h"
#include "sim/engine.h"

namespace sb::sim {

struct MailItem {
  bool admission = false;
  Admission verdict = Admission::accepted;
  SchedEvent event;
};

class EngineMailbox;

// The deliveries from the engine's thread waiting for one io_context's thread (an Asio service:
// one per context), drained there in the order they came by one posted function per batch.
class MailOutbox final : public asio::execution_context::service {
 public:
  static inline asio::execution_context::id id;
  explicit MailOutbox(asio::execution_context& ctx) : service(ctx) {}
  // Any thread: queues the item; the first of a batch posts the drain to `ex`.
  void add(const asio::any_io_executor& ex, std::shared_ptr<EngineMailbox> to, const MailItem& it);

 private:
  void shutdown() override {}
  void drain();
  std::mutex mu_;
  std::vector<std::pair<std::shared_ptr<EngineMailbox>, MailItem>> pending_;
  bool posted_ = false;
  std::vector<std::pair<std::shared_ptr<EngineMailbox>, MailItem>> draining_;  // drain's own
};

class EngineMailbox final : public EngineListener,
                            public std::enable_shared_from_this<EngineMailbox> {
 public:
  explicit EngineMailbox(const asio::any_io_executor& ex)
      : ex_(ex),
        signal_(ex),
        context_(static_cast<asio::io_context&>(asio::query(ex, asio::execution::context))),
        outbox_(asio::use_service<MailOutbox>(asio::query(ex, asio::execution::context))) {}
  void on_admission(Admission a) override { deliver(MailItem{true, a, {}}); }
  void on_event(const SchedEvent& e) override { deliver(MailItem{false, Admission::accepted, e}); }

  // On the mailbox's executor: the item is in; a waiting next() wakes.
  void receive(const MailItem& it) {
    items_.push_back(it);
    signal_.cancel();
  }

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
  // allocation and no queue entry per token. From the engine's own thread, through the
  // context's MailOutbox: a step's events for every stream of that context in one post.
  void deliver(const MailItem& it) {
    if (context_.get_executor().running_in_this_thread())
      receive(it);
    else
      outbox_.add(ex_, shared_from_this(), it);
  }
  asio::any_io_executor ex_;
  asio::steady_timer signal_;
  std::deque<MailItem> items_;
  asio::io_context& context_;  // the executor's: the simulator serves on io_contexts only
  MailOutbox& outbox_;
};

inline void MailOutbox::add(const asio::any_io_executor& ex, std::shared_ptr<EngineMailbox> to,
                            const MailItem& it) {
  bool post = false;
  {
    std::lock_guard lock(mu_);
    pending_.emplace_back(std::move(to), it);
    post = !std::exchange(posted_, true);
  }
  if (post) asio::post(ex, [this] { drain(); });
}

inline void MailOutbox::drain() {
  {
    std::lock_guard lock(mu_);
    draining_.swap(pending_);
    posted_ = false;
  }
  for (auto& [mailbox, item] : draining_) mailbox->receive(item);
  draining_.clear();
}

}  // namespace sb::sim
