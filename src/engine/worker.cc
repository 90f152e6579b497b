#include "engine/worker.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <boost/asio/redirect_error.hpp>

namespace sb::engine {

namespace {

std::string build_extra_headers(const EngineConfig& c) {
  std::string h;
  for (const auto& [name, value] : c.headers) h += fmt::format("{}: {}\r\n", name, value);
  if (!c.api_key.empty()) h += fmt::format("Authorization: Bearer {}\r\n", c.api_key);
  return h;
}

awaitable<void> sleep_until(TimePoint t) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_at(t);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
}

}  // namespace

int WorkerCounters::ttft_bucket(double ms) {
  const int b = static_cast<int>(8.0 * std::log2(std::max(0.0, ms) + 1.0));
  return std::clamp(b, 0, kTtftBuckets - 1);
}

double WorkerCounters::ttft_bucket_ms(int bucket) {
  return std::exp2((bucket + 0.5) / 8.0) - 1.0;
}

Worker::Worker(int index, int worker_count, Shared shared)
    : index_(index),
      worker_count_(worker_count),
      shared_(shared),
      guard_(io_.get_executor()),
      adapter_(protocol::make_adapter(shared.config.adapter)),
      slot_freed_(io_) {
  const auto& c = shared.config;
  template_.target =
      c.client.url.target(c.endpoint.empty() ? adapter_->default_path() : c.endpoint);
  template_.host_header = c.client.url.host_header();
  template_.extra_headers = build_extra_headers(c);
  template_.accept = c.adapter.stream ? "text/event-stream" : "application/json";
  template_.run_start = shared.run_start;
  template_.timeouts = c.timeouts;
  thread_ = std::thread([this] { io_.run(); });
}

Worker::~Worker() {
  join();
}

void Worker::join() {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    idle_.clear();
    guard_.reset();
  });
  thread_.join();
}

void Worker::cancel_in_flight() {
  asio::post(io_, [this] {
    cancelled_ = true;
    for (Channel* c : active_) c->connection.close();
  });
}

std::unique_ptr<Channel> Worker::acquire_channel() {
  std::unique_ptr<Channel> ch;
  if (!idle_.empty()) {
    ch = std::move(idle_.back());
    idle_.pop_back();
  } else {
    ch = std::make_unique<Channel>(io_.get_executor(), shared_.client, *adapter_,
                                   shared_.config.adapter.stream, shared_.config.max_event_bytes,
                                   shared_.config.keep_output_text);
  }
  active_.push_back(ch.get());
  return ch;
}

void Worker::release_channel(std::unique_ptr<Channel> ch) {
  active_.erase(std::find(active_.begin(), active_.end(), ch.get()));
  if (ch->connection.is_open()) idle_.push_back(std::move(ch));
}

awaitable<void> Worker::one_request(Phase& phase, uint64_t id, TimePoint t_sched) {
  metrics::RequestRecord record;
  record.id = id;
  record.warmup = phase.warmup;
  record.t_sched_ns = ns_since(shared_.run_start, t_sched);
  const workload::WorkItem item = shared_.prompts.item(id);
  record.request_class = item.request_class.empty() ? "default" : item.request_class;
  record.input_tokens = item.input_tokens;
  const std::string body = adapter_->build_body(protocol::Prompt{
      .text = item.prompt, .messages_json = item.messages_json, .max_tokens = item.max_tokens});

  counters_.started.fetch_add(1, std::memory_order_relaxed);
  counters_.in_flight.fetch_add(1, std::memory_order_relaxed);
  auto channel = acquire_channel();
  try {
    co_await run_request(template_, *channel, body, record);
  } catch (const std::exception& e) {
    // Not expected: every network and server fault is classified in run_request.
    // Keep the record rather than lose it.
    channel->connection.close();
    if (record.error_class == ErrorClass::ok) record.error_class = ErrorClass::malformed;
    record.error = fmt::format("internal error: {}", e.what());
    record.t_end_ns = ns_since(shared_.run_start, Clock::now());
  }
  release_channel(std::move(channel));
  if (cancelled_ && !record.ok()) {
    record.error_class = ErrorClass::cancelled;
    record.error = "cancelled by the client after an interrupt";
  }
  counters_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  counters_.done.fetch_add(1, std::memory_order_relaxed);
  if (!record.ok()) counters_.errors.fetch_add(1, std::memory_order_relaxed);
  if (const auto ttft = record.ttft_ms())
    counters_.ttft[WorkerCounters::ttft_bucket(*ttft)].fetch_add(1, std::memory_order_relaxed);
  counters_.output_tokens.fetch_add(
      static_cast<uint64_t>(std::max<int64_t>(0, record.output_tokens)), std::memory_order_relaxed);
  shared_.sink(record);
  records_.push_back(std::move(record));
}

awaitable<void> Worker::closed_slot(Phase& phase) {
  // Closed loop: the slot's next request is scheduled the moment the previous one ended.
  for (;;) {
    if (shared_.stop.load(std::memory_order_relaxed) || cancelled_) co_return;
    const TimePoint now = Clock::now();
    if (now >= phase.stop_at) co_return;
    const uint64_t id = phase.next.fetch_add(1, std::memory_order_relaxed);
    if (id >= phase.end_index) co_return;
    co_await one_request(phase, id, now);
  }
}

awaitable<void> Worker::open_dispatch(Phase& phase, int64_t cap) {
  // Open loop: ids index_, index_ + W, ... at their absolute scheduled instants.
  // A send that waits for a free slot (--max-concurrency) keeps its scheduled
  // time as t_sched, so the wait shows as dispatch delay and in scheduled_e2e.
  auto ex = co_await asio::this_coro::executor;
  const auto& schedule = *phase.schedule;
  for (uint64_t k = static_cast<uint64_t>(index_); k < schedule.size();
       k += static_cast<uint64_t>(worker_count_)) {
    const uint64_t id = phase.first_index + k;
    if (id >= phase.end_index) break;
    const TimePoint t_sched = phase.start + schedule[k];
    if (t_sched >= phase.stop_at) break;
    co_await sleep_until(t_sched);
    while (cap > 0 && in_flight_ >= cap && !shared_.stop.load(std::memory_order_relaxed) &&
           !cancelled_) {
      slot_freed_.expires_at(TimePoint::max());
      boost::system::error_code ec;
      co_await slot_freed_.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    if (shared_.stop.load(std::memory_order_relaxed) || cancelled_) break;
    ++in_flight_;
    asio::co_spawn(
        ex,
        [this, &phase, id, t_sched]() -> awaitable<void> {
          co_await one_request(phase, id, t_sched);
          --in_flight_;
          wake(slot_freed_);
        },
        asio::detached);
  }
  while (in_flight_ > 0) {
    slot_freed_.expires_at(TimePoint::max());
    boost::system::error_code ec;
    co_await slot_freed_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
}

std::future<void> Worker::run_phase(Phase& phase, int64_t slots) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> future = done->get_future();
  asio::post(io_, [this, &phase, slots, done] {
    auto ex = io_.get_executor();
    if (phase.mode == LoadMode::closed) {
      auto remaining = std::make_shared<int64_t>(slots);
      if (slots <= 0) {
        done->set_value();
        return;
      }
      for (int64_t s = 0; s < slots; ++s)
        asio::co_spawn(ex, closed_slot(phase), [remaining, done](std::exception_ptr) {
          if (--*remaining == 0) done->set_value();
        });
    } else {
      asio::co_spawn(ex, open_dispatch(phase, slots),
                     [done](std::exception_ptr) { done->set_value(); });
    }
  });
  return future;
}

}  // namespace sb::engine
