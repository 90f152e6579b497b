#include "predict/virtual_run.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/wall_clock.h"
#include "engine/load_phases.h"
#include "engine/request_priority.h"
#include "predict/virtual_server.h"
#include "protocol/adapter.h"
#include "workload/prompt_source.h"

namespace sb::predict {
namespace {

using metrics::kNoTime;
using namespace std::chrono_literals;

// The client and loopback network of a live run, as virtual time models them (measured on
// `servebench sim --trace` against prof): a request reaches the server 50 µs after it is sent,
// requests sent at one instant leave 10 µs apart (one sender writes them in turn), and each
// response event reaches the client 50 µs after the server wrote it. The spacing matters: as
// live, the first of a wave of closed-loop requests can start a step on its own.
constexpr Nanos kToServer = 50us;
constexpr Nanos kSendSpacing = 10us;
constexpr Nanos kToClient = 50us;

// One phase of the load, as engine.cc runs it: warm-up (closed loop over the in-flight cap)
// or the measured phase (closed loop, or the open-loop schedule).
struct Phase {
  bool warmup = false;
  bool closed = true;
  uint64_t next_id = 0, end_id = 0;  // ids still to issue: [next_id, end_id)
  int64_t cap = 0;                   // requests in flight at most; 0: unbounded (open loop)
  TimePoint start{}, stop_at = TimePoint::max();
  std::vector<Nanos> schedule;  // open loop: offset of request k since start
  size_t next_offset = 0;
  std::deque<std::pair<uint64_t, TimePoint>> held;  // open loop: due, waiting for a slot
};

// A request in flight: its record so far and what the response will say of its counts.
struct InFlight {
  metrics::RequestRecord record;
  int64_t last_text_ns = kNoTime;
  size_t server = 0;
  TimePoint arrived{};                   // at the server
  std::optional<TimePoint> first_token;  // written by the server
  int64_t reasoning_tokens = 0;          // the first ones of the reply are reasoning (GenRequest)
};

struct Refusal {
  TimePoint end;
  uint64_t id;
  bool operator>(const Refusal& o) const { return end > o.end || (end == o.end && id > o.id); }
};

class VirtualRun {
 public:
  VirtualRun(const engine::EngineConfig& c, const std::vector<sim::SimConfig>& replicas,
             const VirtualHooks& hooks)
      : config_(c),
        hooks_(hooks),
        prompts_(c.workload),
        adapter_(protocol::make_adapter(c.adapter)),
        api_(api_kind_of(c.adapter)) {
    for (const auto& r : replicas)
      servers_.push_back(std::make_unique<VirtualServer>(r, api_, start_));
    next_sample_ = start_;
    sample_interval_ = hooks.sample_interval;
  }

  engine::RunResult run();

 private:
  int64_t ns(TimePoint t) const { return engine::ns_since(start_, t); }
  bool stopped() const { return hooks_.stop && hooks_.stop->load(std::memory_order_relaxed); }
  void run_phase(Phase& p);
  std::optional<TimePoint> next_time(const Phase& p) const;
  void issue(Phase& p, TimePoint now);
  void send(const Phase& p, uint64_t id, TimePoint t_sched, TimePoint now);
  void on_token(const sim::SchedEvent& e);
  void finish(metrics::RequestRecord& r);
  // Every sample due before `t` (the servers' state is constant between events).
  void sample_until(TimePoint t);

  const engine::EngineConfig& config_;
  const VirtualHooks& hooks_;
  const workload::PromptSource prompts_;
  std::unique_ptr<protocol::Adapter> adapter_;
  sim::ApiKind api_;
  std::vector<std::unique_ptr<VirtualServer>> servers_;  // not movable (its /metrics holds a lock)
  size_t next_server_ = 0;
  TimePoint last_send_{};  // the instant of the latest send, and how many were sent then
  int sends_at_last_ = 0;
  TimePoint next_sample_{};
  Nanos sample_interval_{0};  // hooks' interval, doubled each time max_samples is reached
  size_t sample_index_ = 0;   // next_sample_ = start_ + sample_index_ * sample_interval_
  TimePoint last_sample_ = TimePoint::min();  // the latest instant sampled
  TimePoint start_ = TimePoint{} + std::chrono::hours(1);
  std::unordered_map<uint64_t, InFlight> in_flight_;
  std::priority_queue<Refusal, std::vector<Refusal>, std::greater<>> refusals_;
  // Slots in use (requests sent whose end the client has not seen yet), and the instants at
  // which the client sees an end and frees a slot.
  int64_t busy_ = 0;
  std::priority_queue<TimePoint, std::vector<TimePoint>, std::greater<>> releases_;
  std::vector<sim::SchedEvent> events_;
  engine::RunResult result_;
  int64_t last_end_ns_ = 0;
};

std::optional<TimePoint> VirtualRun::next_time(const Phase& p) const {
  std::optional<TimePoint> t;
  auto consider = [&](std::optional<TimePoint> x) {
    if (x && (!t || *x < *t)) t = x;
  };
  for (const auto& s : servers_) consider(s->next_event());
  if (!refusals_.empty()) consider(refusals_.top().end);
  if (!releases_.empty()) consider(releases_.top());
  if (!p.closed && !stopped() && p.next_offset < p.schedule.size() && p.next_id < p.end_id) {
    const TimePoint due = p.start + p.schedule[p.next_offset];
    if (due < p.stop_at) consider(due);
  }
  return t;
}

void VirtualRun::run_phase(Phase& p) {
  issue(p, p.start);
  while (const auto t = next_time(p)) {
    sample_until(*t);
    for (auto& s : servers_) {
      events_.clear();
      s->advance(*t, events_);
      for (const auto& e : events_)
        if (e.kind == sim::SchedEvent::Kind::token) on_token(e);
    }
    while (!refusals_.empty() && refusals_.top().end <= *t) {
      const uint64_t id = refusals_.top().id;
      refusals_.pop();
      auto it = in_flight_.find(id);
      it->second.record.t_end_ns = ns(*t);
      servers_[it->second.server]->observe(false, to_s(*t - it->second.arrived), -1,
                                           it->second.record.input_tokens, 0);
      finish(it->second.record);
      in_flight_.erase(it);
      --busy_;
    }
    while (!releases_.empty() && releases_.top() <= *t) {
      releases_.pop();
      --busy_;
    }
    issue(p, *t);
  }
}

void VirtualRun::issue(Phase& p, TimePoint now) {
  const auto room = [&] { return p.cap <= 0 || busy_ < p.cap; };
  const bool may_start = !stopped() && now < p.stop_at;
  if (p.closed) {
    while (may_start && room() && p.next_id < p.end_id) send(p, p.next_id++, now, now);
    return;
  }
  while (may_start && p.next_offset < p.schedule.size() && p.next_id < p.end_id) {
    const TimePoint due = p.start + p.schedule[p.next_offset];
    if (due > now || due >= p.stop_at) break;
    p.held.emplace_back(p.next_id++, due);
    ++p.next_offset;
  }
  while (!p.held.empty() && room()) {
    send(p, p.held.front().first, p.held.front().second, now);
    p.held.pop_front();
  }
}

void VirtualRun::send(const Phase& p, uint64_t id, TimePoint t_sched, TimePoint now) {
  workload::WorkItem item = prompts_.item(id);
  InFlight f;
  metrics::RequestRecord& r = f.record;
  // --priority-mix: as the live engine sends it.
  const std::optional<int64_t> priority = engine::assign_priority(config_.load, id, r);
  const std::string body =
      adapter_->build_body(protocol::Prompt{.text = item.prompt,
                                            .messages_json = item.messages_json,
                                            .max_tokens = item.max_tokens,
                                            .priority = priority});
  r.id = id;
  r.warmup = p.warmup;
  r.request_class = item.request_class.empty() ? "default" : item.request_class;
  r.input_tokens = item.input_tokens;
  r.t_sched_ns = ns(t_sched);
  r.t_send_ns = ns(now);
  sends_at_last_ = now == last_send_ ? sends_at_last_ + 1 : 0;
  last_send_ = now;
  const TimePoint arrives = now + kToServer + sends_at_last_ * kSendSpacing;
  f.server = next_server_++ % servers_.size();
  f.arrived = arrives;
  VirtualServer& server = *servers_[f.server];
  auto verdict = server.submit(id, body, arrives, priority);
  if (const auto* no = std::get_if<Rejection>(&verdict)) {
    r.status = no->status;
    r.error_class = no->error_class;
    r.error = no->message;
    refusals_.push({arrives + server.rejection_delay() + kToClient, id});
  } else {
    const auto& g = std::get<sim::GenRequest>(verdict);
    r.status = 200;
    // What the response will say (protocol/: TGI details, OpenAI usage; both always asked for).
    if (api_ != sim::ApiKind::tgi_generate) r.input_tokens = g.prompt_tokens;
    r.output_tokens_source =
        sim::is_tgi(api_) ? metrics::TokenSource::details : metrics::TokenSource::usage;
    f.reasoning_tokens = g.reasoning_tokens;
  }
  in_flight_.emplace(id, std::move(f));
  ++busy_;
  // As the live engine does after each submit: a step may start at once.
  events_.clear();
  server.advance(now, events_);
  for (const auto& e : events_)
    if (e.kind == sim::SchedEvent::Kind::token) on_token(e);
}

void VirtualRun::on_token(const sim::SchedEvent& e) {
  auto it = in_flight_.find(e.id);
  if (it == in_flight_.end()) return;
  InFlight& f = it->second;
  metrics::RequestRecord& r = f.record;
  const int64_t t = ns(e.time + kToClient);
  if (!f.first_token) f.first_token = e.time;
  if (config_.adapter.stream || e.last) {  // unstreamed: one event, the whole body at the end
    // As the live client times them: the first reasoning or content event, then the first
    // content event (token reasoning_tokens + 1; a whole body, its last token, has both when
    // it has content).
    if (r.t_first_ns == kNoTime) r.t_first_ns = t;
    if (r.t_first_content_ns == kNoTime && e.index > f.reasoning_tokens) r.t_first_content_ns = t;
    if (f.last_text_ns != kNoTime)
      r.itl_ms.push_back(static_cast<float>(static_cast<double>(t - f.last_text_ns) / 1e6));
    f.last_text_ns = r.t_last_ns = t;
    ++r.events;
  }
  if (!e.last) return;
  r.t_end_ns = t;
  r.output_tokens = e.index;
  r.output_tokens_alt = e.index;  // the estimate: one token per event, 4 bytes per token
  r.output_tokens_alt_source = metrics::TokenSource::estimate;
  if (f.reasoning_tokens > 0) {  // the usage's count; Anthropic's has none: the text's estimate
    r.reasoning_tokens = f.reasoning_tokens;
    r.reasoning_tokens_source = api_ == sim::ApiKind::anthropic ? metrics::TokenSource::estimate
                                                                : metrics::TokenSource::usage;
  }
  servers_[f.server]->observe(true, to_s(e.time - f.arrived), to_s(*f.first_token - f.arrived),
                              r.input_tokens, e.index);
  finish(r);
  in_flight_.erase(it);
  releases_.push(e.time + kToClient);
}

void VirtualRun::finish(metrics::RequestRecord& r) {
  last_end_ns_ = std::max(last_end_ns_, r.t_end_ns);
  if (hooks_.on_record) hooks_.on_record(r);
  if (hooks_.keep_records) result_.records.push_back(std::move(r));
}

void VirtualRun::sample_until(TimePoint t) {
  if (sample_interval_ <= Nanos::zero() || !hooks_.on_sample) return;
  while (next_sample_ < t) {
    // The bound is checked before a sample is taken, so that the last one (the run's end) never
    // coarsens what was kept for nothing.
    const size_t cap = hooks_.max_samples + hooks_.max_samples % 2;  // even: k = cap is on 2x grid
    if (cap > 0 && sample_index_ > cap) {
      if (hooks_.on_coarser) hooks_.on_coarser(sample_interval_);
      next_sample_ += sample_interval_;  // from start + (cap + 1) I to start + (cap + 2) I
      sample_interval_ *= 2;
      sample_index_ = cap / 2 + 1;
      continue;
    }
    for (size_t i = 0; i < servers_.size(); ++i)
      hooks_.on_sample(i, ns(next_sample_), servers_[i]->metrics_page(next_sample_));
    last_sample_ = next_sample_;
    ++sample_index_;
    next_sample_ += sample_interval_;
  }
}

// Phases as engine.cc builds them (engine/load_phases.h).
engine::RunResult VirtualRun::run() {
  const engine::LoadConfig& load = config_.load;
  result_.started_at = iso_utc_now();
  result_.run_start = start_;
  result_.workers = 1;
  TimePoint t = start_;
  if (load.warmup > 0) {
    Phase warm;
    warm.warmup = true;
    warm.end_id = static_cast<uint64_t>(load.warmup);
    warm.cap = engine::warmup_slots(load);
    warm.start = t;
    run_phase(warm);
    t = start_ + Nanos(last_end_ns_);
  }
  Phase m;
  m.closed = load.mode == engine::LoadMode::closed;
  m.cap = engine::max_in_flight(load);
  m.next_id = static_cast<uint64_t>(load.warmup);
  m.end_id =
      load.num_requests > 0 ? m.next_id + static_cast<uint64_t>(load.num_requests) : UINT64_MAX;
  m.start = t;
  if (load.duration > Nanos::zero()) m.stop_at = t + load.duration;
  m.schedule = engine::measured_schedule(load);
  run_phase(m);
  // Every sample before the run's end, then the first one at or after it (on the grid of then).
  const TimePoint end = start_ + Nanos(last_end_ns_);
  sample_until(end);
  if (sample_interval_ > Nanos::zero() && hooks_.on_sample)
    while (last_sample_ < end) sample_until(next_sample_ + Nanos(1));
  std::sort(result_.records.begin(), result_.records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  result_.duration_s = static_cast<double>(last_end_ns_) / 1e9;
  result_.interrupted = stopped();
  return std::move(result_);
}

}  // namespace

void check_modelled(const engine::EngineConfig& config) {
  (void)api_kind_of(config.adapter);  // the pooling APIs and generic: refused
  // Its rule is a client timeout, which virtual time does not model: refused, rather than a
  // summary saying no user ever gave up.
  if (config.timeouts.abandon_after > Nanos::zero())
    throw usage_error(
        "predict: --abandon-after is not modelled in virtual time (client timeouts are not); "
        "run the command without `predict` to measure abandonment");
  // Sessions feed each answer's text into the next turn and wait for think times: not modelled.
  if (config.load.sessions.enabled())
    throw usage_error(
        "predict: --session-concurrency is not modelled in virtual time; run the command "
        "without `predict` to measure sessions");
}

engine::RunResult run_virtual(const engine::EngineConfig& config,
                              const std::vector<sim::SimConfig>& replicas,
                              const VirtualHooks& hooks) {
  engine::validate(config);
  if (replicas.empty()) throw usage_error("predict: no simulated server to predict");
  if (config.load.mode == engine::LoadMode::closed && config.load.num_requests <= 0 &&
      config.load.duration <= Nanos::zero())
    throw usage_error("predict: a closed loop needs --num-requests or --duration");
  check_modelled(config);
  return VirtualRun(config, replicas, hooks).run();
}

}  // namespace sb::predict
