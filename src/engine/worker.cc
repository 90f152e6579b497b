#include "engine/worker.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <boost/asio/redirect_error.hpp>

#include "engine/phase_clock.h"
#include "engine/request_priority.h"
#include "quality/request_quality.h"
#include "workload/conversation.h"
#include "workload/output_tokens.h"
#include "workload/pooling_item.h"

namespace sb::engine {

namespace {

std::string build_extra_headers(const EngineConfig& c) {
  std::string h;
  for (const auto& [name, value] : c.headers) h += fmt::format("{}: {}\r\n", name, value);
  h += protocol::api_headers(c.adapter.api, c.api_key, c.headers);  // the key, as the API wants
  return h;
}

awaitable<void> sleep_until(TimePoint t) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_at(t);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
}

// Whether the work items carry references (quality scoring needs the output text): decided
// on the first 16 items, since datasets give all or none of their entries a reference.
bool has_references(const workload::PromptSource& prompts) {
  for (uint64_t i = 0; i < 16; ++i)
    if (!prompts.item(i).reference.empty()) return true;
  return false;
}

thread_local bool t_event_loop = false;

}  // namespace

bool on_event_loop_thread() {
  return t_event_loop;
}

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
      slot_freed_(io_),
      lag_probe_(io_, shared.config.loop_stall_for_tests) {
  const auto& c = shared.config;
  const size_t endpoints = shared.clients ? shared.clients->size() : 1;
  for (size_t i = 0; i < endpoints; ++i) {
    const net::Url& url = i == 0 ? c.client.url : (*shared.clients)[i]->options().url;
    RequestTemplate t;
    t.target = url.target(c.endpoint.empty() ? adapter_->default_path() : c.endpoint);
    t.host_header = url.host_header();
    t.extra_headers = build_extra_headers(c);
    t.accept = c.adapter.stream ? "text/event-stream" : "application/json";
    t.run_start = shared.run_start;
    t.timeouts = c.timeouts;
    templates_.push_back(std::move(t));
  }
  idle_.resize(endpoints);
  const bool references = has_references(shared.prompts);
  const bool tokenizer = shared.prompts.tokenizer() != nullptr;  // --tokenizer counts the text
  // Sessions feed each answer back into the next turn: they need its text.
  keep_text_ =
      c.keep_output_text || c.save_outputs || references || tokenizer || c.load.sessions.enabled();
  if (references || tokenizer)
    finisher_ = std::make_unique<RecordFinisher>([this](FinishJob& job) { finish(job); });
  lag_probe_.start();
  thread_ = std::thread([this] {
    t_event_loop = true;
    io_.run();
  });
}

Worker::~Worker() {
  join();
}

void Worker::join() {
  if (thread_.joinable()) {
    asio::post(io_, [this] {
      for (auto& pool : idle_) pool.clear();
      lag_probe_.stop();
      guard_.reset();
    });
    thread_.join();
  }
  // After the loop: every record it handed over is in the queue by now.
  if (finisher_) finisher_->close();
}

void Worker::cancel_in_flight() {
  asio::post(io_, [this] {
    cancelled_ = true;
    for (Channel* c : active_) c->connection.close();
  });
}

std::unique_ptr<Channel> Worker::acquire_channel(size_t endpoint) {
  std::unique_ptr<Channel> ch;
  auto& idle = idle_[endpoint];
  if (!idle.empty()) {
    ch = std::move(idle.back());
    idle.pop_back();
  } else {
    const net::ClientContext& client =
        shared_.clients ? *(*shared_.clients)[endpoint] : shared_.client;
    ch = std::make_unique<Channel>(io_.get_executor(), client, *adapter_,
                                   shared_.config.adapter.stream, shared_.config.max_event_bytes,
                                   keep_text_);
  }
  active_.push_back(ch.get());
  return ch;
}

// A channel goes back to its endpoint's pool whether or not its connection is still open: a
// closed one reconnects on its next request with the same buffers. Freeing it after every
// fault and allocating another made a long run with faults touch ever more fresh heap pages
// (RSS grew ~17% in an hour while the live heap stayed flat, docs/durability.md).
void Worker::release_channel(std::unique_ptr<Channel> ch, size_t endpoint) {
  active_.erase(std::find(active_.begin(), active_.end(), ch.get()));
  auto& idle = idle_[endpoint];
  if (ch->connection.is_open())
    idle.push_back(std::move(ch));  // taken first (acquire_channel takes from the back)
  else
    idle.insert(idle.begin(), std::move(ch));
}

awaitable<void> Worker::one_request(Phase& phase, uint64_t id, TimePoint t_sched) {
  metrics::RequestRecord record;
  record.id = id;
  record.warmup = phase.warmup;
  record.t_sched_ns = ns_since(shared_.run_start, t_sched);
  const auto& c = shared_.config;
  workload::WorkItem item = protocol::is_pooling(c.adapter.api)
                                ? workload::pooling_item(shared_.prompts,
                                                         c.adapter.api == protocol::Api::rerank
                                                             ? workload::PoolingKind::rerank
                                                             : workload::PoolingKind::embeddings,
                                                         c.workload.batch_inputs, id)
                                : shared_.prompts.item(id);
  co_await send_item(std::move(record), std::move(item), {});
}

awaitable<std::optional<Worker::Answer>> Worker::send_item(metrics::RequestRecord record,
                                                           workload::WorkItem item,
                                                           std::string more_headers) {
  record.request_class = item.request_class.empty() ? "default" : item.request_class;
  record.input_tokens = item.input_tokens;
  const std::optional<int64_t> priority = assign_priority(shared_.config.load, record.id, record);
  if (protocol::is_pooling(shared_.config.adapter.api))
    record.items = static_cast<int64_t>(item.inputs.size());
  const std::string body =
      adapter_->build_body(protocol::Prompt{.text = item.prompt,
                                            .messages_json = item.messages_json,
                                            .max_tokens = item.max_tokens,
                                            .priority = priority,
                                            .inputs = std::move(item.inputs),
                                            .image_inputs = item.image_inputs});

  counters_.started.fetch_add(1, std::memory_order_relaxed);
  counters_.in_flight.fetch_add(1, std::memory_order_relaxed);
  const size_t endpoint = shared_.picker ? shared_.picker->acquire() : 0;
  auto channel = acquire_channel(endpoint);
  try {
    co_await run_request(templates_[endpoint], *channel, body, record, more_headers);
  } catch (const std::exception& e) {
    // Not expected: every network and server fault is classified in run_request.
    // Keep the record rather than lose it, with the text times that arrived.
    channel->recorder.flush_text_times();
    channel->connection.close();
    if (record.error_class == ErrorClass::ok) record.error_class = ErrorClass::malformed;
    record.error = fmt::format("internal error: {}", e.what());
    record.t_end_ns = ns_since(shared_.run_start, Clock::now());
  }
  release_channel(std::move(channel), endpoint);
  if (shared_.picker) shared_.picker->release(endpoint);
  if (cancelled_ && !record.ok()) {
    record.error_class = ErrorClass::cancelled;
    record.error = "cancelled by the client after an interrupt";
  }
  counters_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  counters_.done.fetch_add(1, std::memory_order_relaxed);
  if (!record.ok()) counters_.errors.fetch_add(1, std::memory_order_relaxed);
  if (const auto ttft = record.ttft_ms())
    counters_.ttft[WorkerCounters::ttft_bucket(*ttft)].fetch_add(1, std::memory_order_relaxed);
  std::optional<Answer> answer;
  if (record.ok() && record.session_id >= 0)
    answer = Answer{record.output_text, record.output_tokens};
  FinishJob job{std::move(record), std::move(item.reference)};
  if (finisher_)
    finisher_->push(std::move(job));
  else
    finish(job);
  co_return answer;
}

awaitable<void> Worker::session_slot(Phase& phase) {
  // A closed loop over sessions: the slot's next session starts the moment its last one ended.
  const auto& load = shared_.config.load;
  for (;;) {
    if (shared_.stop.load(std::memory_order_relaxed) || cancelled_) co_return;
    if (now_of(shared_.config.time_source) >= phase.stop_at) co_return;
    const uint64_t k = phase.next.fetch_add(1, std::memory_order_relaxed);
    const uint64_t session =
        k * static_cast<uint64_t>(load.shard_count) + static_cast<uint64_t>(load.shard_index);
    if (session >= phase.end_index) co_return;
    co_await run_session(phase, session);
  }
}

awaitable<void> Worker::run_session(Phase& phase, uint64_t session) {
  const auto& c = shared_.config;
  const workload::SessionSpec& spec = c.load.sessions;
  const auto api = c.adapter.api;
  workload::Conversation conversation(api == protocol::Api::openai_chat ||
                                      api == protocol::Api::openai_responses ||
                                      api == protocol::Api::anthropic);
  const int64_t turns = spec.turns_of(c.load.seed, session);
  std::string header;
  if (!spec.header.empty()) header = fmt::format("{}: {}\r\n", spec.header, session);
  TimePoint t_sched = now_of(c.time_source);
  for (int64_t turn = 0; turn < turns; ++turn) {
    if (turn > 0) {
      // The user reads the answer and types the next turn: the turn is due after its think
      // time, counted from the previous answer's end.
      t_sched = now_of(c.time_source) + spec.think_before(c.load.seed, session, turn);
      if (t_sched >= phase.stop_at) co_return;
      co_await sleep_until(t_sched);
      if (shared_.stop.load(std::memory_order_relaxed) || cancelled_) co_return;
    }
    const uint64_t j = phase.next_id.fetch_add(1, std::memory_order_relaxed);
    metrics::RequestRecord record;
    record.id = phase.first_index + j * static_cast<uint64_t>(c.load.shard_count) +
                static_cast<uint64_t>(c.load.shard_index);
    record.warmup = phase.warmup;
    record.t_sched_ns = ns_since(shared_.run_start, t_sched);
    record.session_id = static_cast<int64_t>(session);
    record.turn = static_cast<int32_t>(turn);
    record.session_turns = static_cast<int32_t>(turns);
    record.history_tokens = conversation.history_tokens();
    // The turn's new user message: a prompt of the source's own, one index per (session, turn).
    const uint64_t index = phase.first_index +
                           session * static_cast<uint64_t>(workload::kMaxTurns) +
                           static_cast<uint64_t>(turn);
    workload::WorkItem item = conversation.next_turn(shared_.prompts.item(index));
    const std::optional<Answer> answer =
        co_await send_item(std::move(record), std::move(item), header);
    if (!answer) co_return;
    conversation.add_answer(answer->text, answer->output_tokens);
  }
}

void Worker::finish(FinishJob& job) {
  metrics::RequestRecord& record = job.record;
  // --tokenizer: output tokens counted exactly from the text; the server's count is kept as
  // the alternative, for the discrepancy in summary.json (workload/output_tokens.h).
  if (const auto* tok = shared_.prompts.tokenizer()) workload::count_output_tokens(*tok, record);
  // Quality (src/quality): score a successful response against its reference, keeping only
  // the scores and their sufficient statistics; the text stays only with --save-outputs.
  if (record.ok() && !job.reference.empty())
    record.quality = std::make_shared<const quality::RequestQuality>(
        quality::score_request(record.output_text, job.reference, shared_.config.quality_tokenize));
  if (!shared_.config.save_outputs) std::string().swap(record.output_text);
  counters_.output_tokens.fetch_add(
      static_cast<uint64_t>(std::max<int64_t>(0, record.output_tokens)), std::memory_order_relaxed);
  shared_.sink(record);
  last_end_ns_ = std::max(last_end_ns_, record.t_end_ns);
  if (shared_.keep_records) records_.push_back(std::move(record));
}

awaitable<void> Worker::closed_slot(Phase& phase) {
  // Closed loop: the slot's next request is scheduled the moment the previous one ended.
  for (;;) {
    if (shared_.stop.load(std::memory_order_relaxed) || cancelled_) co_return;
    const TimePoint now = now_of(shared_.config.time_source);
    if (now >= phase.stop_at) co_return;
    const auto& load = shared_.config.load;
    const uint64_t k = phase.next.fetch_add(1, std::memory_order_relaxed);
    const uint64_t id = phase.first_index + k * static_cast<uint64_t>(load.shard_count) +
                        static_cast<uint64_t>(load.shard_index);
    if (id >= phase.end_index) co_return;
    co_await one_request(phase, id, now);
  }
}

awaitable<void> Worker::open_dispatch(Phase& phase, int64_t cap) {
  // Open loop: schedule entries k = index_, index_ + W, ... at their absolute scheduled
  // instants; in a distributed run (S shards) this process's entries shard_index + S * k.
  // A send that waits for a free slot (--max-concurrency) keeps its scheduled
  // time as t_sched, so the wait shows as dispatch delay and in scheduled_e2e.
  auto ex = co_await asio::this_coro::executor;
  OpenLoopShare share({.schedule = phase.schedule,
                       .start = phase.start,
                       .stop_at = phase.stop_at,
                       .first_index = phase.first_index,
                       .end_index = phase.end_index,
                       .worker = index_,
                       .workers = worker_count_,
                       .shard = shared_.config.load.shard_index,
                       .shards = shared_.config.load.shard_count});
  while (const std::optional<OpenLoopSend> send = share.next()) {
    const uint64_t id = send->id;
    const TimePoint t_sched = send->t_sched;
    co_await sleep_until(t_sched);  // an Asio timer: the steady clock
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
        asio::co_spawn(ex, phase.sessions ? session_slot(phase) : closed_slot(phase),
                       [remaining, done](std::exception_ptr) {
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
