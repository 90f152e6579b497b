#pragma once
// One request's mailbox between the Engine thread and the connection's coroutine: the engine
// posts its admission verdicts and events into it (on the connection's executor); the
// coroutine takes them out in order. One mailbox may listen to several engine requests (a
// pooling request's items, sim/pooling_handler.cc).
//
// The fast path: while the coroutine is parked in next() with nothing queued, an item the
// connection's fast path takes (a streamed token it can write at once) is handled right there,
// on the connection's executor, and the coroutine sleeps on: no wake and no resume per token.
// An item it takes only in part (its bytes not all sent) is queued marked `tail` for the
// coroutine to finish; one it declines is queued as usual. Order is kept: nothing passes a
// queued item.
#include <deque>
#include <functional>
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
  bool tail = false;  // the fast path took it in part: the coroutine finishes it
};

// What a fast path did with an item.
enum class FastTake { declined, whole, in_part };

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

  // On the mailbox's executor: installs (an empty function: removes) the fast path, which
  // must not outlive what it refers to.
  void set_fast_path(std::function<FastTake(const MailItem&)> f) { fast_ = std::move(f); }

  // On the mailbox's executor: the item is in (or taken by the fast path); a waiting next()
  // wakes when it has something to do.
  void receive(const MailItem& it) {
    const FastTake took = parked_ && items_.empty() && fast_ ? fast_(it) : FastTake::declined;
    if (took == FastTake::whole) return;
    items_.push_back(it);
    items_.back().tail = took == FastTake::in_part;
    signal_.cancel();
  }

  awaitable<MailItem> next() {
    while (items_.empty()) {
      signal_.expires_at(TimePoint::max());
      boost::system::error_code ec;
      parked_ = true;
      co_await signal_.async_wait(asio::redirect_error(use_awaitable, ec));
      parked_ = false;
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
  std::function<FastTake(const MailItem&)> fast_;
  bool parked_ = false;  // the coroutine waits in next()
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
