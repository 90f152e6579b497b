#include "sim/scheduler.h"

#include <algorithm>

namespace sb::sim {

Scheduler::Scheduler(const SimConfig& c)
    : cfg_(c),
      cost_(c),
      batch_cap_(c.batching == BatchPolicy::none ? 1 : c.max_batch_size),
      window_(from_s(c.batch_window_ms / 1e3 * c.time_scale)) {}

Admission Scheduler::submit(const SchedRequest& r, TimePoint now) {
  int64_t need = r.prompt_tokens + r.max_new_tokens;
  int64_t cap = cost_.kv_capacity_tokens();
  if (need > cap) return Admission::kv_full;
  int64_t queued = static_cast<int64_t>(pending_.size() + waiting_.size());
  if (cfg_.queue_limit > 0 && queued >= cfg_.queue_limit) return Admission::queue_full;
  if (cfg_.kv_full == KvFullAction::reject && kv_reserved_ + kv_waiting_ + need > cap)
    return Admission::kv_full;
  Req q{r, now};
  kv_waiting_ += need;
  // Under the serial lock the overhead runs inside the engine (see try_start_step).
  q.ready = cfg_.serial_lock ? now : now + cost_.request_overhead();
  auto it = std::upper_bound(pending_.begin(), pending_.end(), q.ready,
                             [](TimePoint t, const Req& x) { return t < x.ready; });
  pending_.insert(it, q);
  return Admission::accepted;
}

void Scheduler::cancel(uint64_t id) {
  auto drop = [&](std::deque<Req>& d) {
    for (auto it = d.begin(); it != d.end(); ++it)
      if (it->r.id == id) {
        kv_waiting_ -= it->kv_need();
        d.erase(it);
        return true;
      }
    return false;
  };
  if (drop(pending_) || drop(waiting_)) return;
  for (auto& q : running_)
    if (q.r.id == id) q.cancelled = true;  // removed (and KV freed) at the step's end
}

std::optional<TimePoint> Scheduler::next_event() const {
  std::optional<TimePoint> t = step_end_;
  auto consider = [&](TimePoint x) {
    if (!t || x < *t) t = x;
  };
  if (!pending_.empty()) consider(pending_.front().ready);
  if (!step_end_ && cfg_.batching == BatchPolicy::static_batch && running_.empty() &&
      !waiting_.empty() && static_cast<int>(waiting_.size()) < batch_cap_)
    consider(waiting_.front().ready + window_);
  return t;
}

void Scheduler::advance(TimePoint now, std::vector<SchedEvent>& out) {
  for (;;) {
    std::optional<TimePoint> t = next_event();
    if (!t || *t > now) break;
    TimePoint at = *t;
    if (step_end_ && *step_end_ == at) finish_step(at, out);
    while (!pending_.empty() && pending_.front().ready <= at) {
      waiting_.push_back(pending_.front());
      pending_.pop_front();
    }
    if (!step_end_) try_start_step(at, out);
  }
}

void Scheduler::finish_step(TimePoint t, std::vector<SchedEvent>& out) {
  busy_done_ += t - step_start_;
  step_end_.reset();
  for (auto& q : running_) {
    if (q.cancelled) continue;
    ++q.generated;
    out.push_back({SchedEvent::Kind::token, q.r.id, t, q.generated, step_batch_,
                   q.generated >= q.r.output_tokens});
  }
  auto done = [&](const Req& q) { return q.cancelled || q.generated >= q.r.output_tokens; };
  for (const auto& q : running_)
    if (done(q)) kv_reserved_ -= q.kv_need();
  running_.erase(std::remove_if(running_.begin(), running_.end(), done), running_.end());
}

void Scheduler::try_start_step(TimePoint t, std::vector<SchedEvent>& out) {
  int64_t cap = cost_.kv_capacity_tokens();
  size_t first_new = running_.size();
  bool may_admit = true;
  if (cfg_.batching == BatchPolicy::static_batch) {
    may_admit =
        running_.empty() && !waiting_.empty() &&
        (static_cast<int>(waiting_.size()) >= batch_cap_ || t >= waiting_.front().ready + window_);
  }
  if (may_admit) {
    while (!waiting_.empty() && static_cast<int>(running_.size()) < batch_cap_ &&
           kv_reserved_ + waiting_.front().kv_need() <= cap) {
      Req q = waiting_.front();
      waiting_.pop_front();
      kv_waiting_ -= q.kv_need();
      kv_reserved_ += q.kv_need();
      running_.push_back(q);
    }
  }
  if (running_.empty()) return;
  Nanos dur{0};
  int64_t new_prompt = 0;
  int64_t resident = 0;
  for (size_t i = first_new; i < running_.size(); ++i) {
    new_prompt += running_[i].r.prompt_tokens;
    if (cfg_.serial_lock) dur += cost_.request_overhead();
    out.push_back({SchedEvent::Kind::admitted, running_[i].r.id, t, 0,
                   static_cast<int>(running_.size()), false});
  }
  if (first_new < running_.size()) dur += cost_.prefill(new_prompt);
  for (const auto& q : running_) resident += q.r.prompt_tokens + q.generated;
  dur += cost_.decode_step(static_cast<int64_t>(running_.size()), resident);
  step_start_ = t;
  step_end_ = t + dur;
  step_batch_ = static_cast<int>(running_.size());
}

SchedStats Scheduler::stats() const {
  SchedStats s;
  s.waiting = static_cast<int64_t>(pending_.size() + waiting_.size());
  s.running = static_cast<int64_t>(running_.size());
  s.kv_used_tokens = kv_reserved_;
  s.kv_capacity_tokens = cost_.kv_capacity_tokens();
  for (const auto& q : running_) {
    s.batch_max_tokens += q.kv_need();
    s.resident_kv_tokens += q.r.prompt_tokens + q.generated;
  }
  s.busy = step_end_.has_value();
  s.busy_total = busy_done_;
  return s;
}

}  // namespace sb::sim
