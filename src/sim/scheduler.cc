#include "sim/scheduler.h"

#include <algorithm>
#include <cmath>

namespace sb::sim {
namespace {

int64_t round_up(int64_t n, int64_t block) {
  return (n + block - 1) / block * block;
}

// Sets the batch size of the admitted events a step start appended (from `first` on) to the
// batch the step runs.
void stamp_admitted(std::vector<SchedEvent>& out, size_t first, size_t batch) {
  for (size_t i = first; i < out.size(); ++i)
    if (out[i].kind == SchedEvent::Kind::admitted) out[i].batch_size = static_cast<int>(batch);
}

int64_t prefix_capacity_blocks(const SimConfig& c, int64_t kv_capacity_tokens) {
  if (!c.sched.prefix_caching) return 0;
  const int64_t tokens =
      c.sched.prefix_cache_tokens > 0 ? c.sched.prefix_cache_tokens : kv_capacity_tokens;
  return tokens / std::max(1, c.sched.kv_block_tokens);
}

}  // namespace

Scheduler::Scheduler(const SimConfig& c)
    : cfg_(c),
      cost_(c),
      batch_cap_(c.sched.batching == BatchPolicy::none ? 1 : c.sched.max_batch_size),
      window_(from_s(c.sched.batch_window_ms / 1e3 * c.server.time_scale)),
      block_(std::max(1, c.sched.kv_block_tokens)),
      total_blocks_(cost_.kv_capacity_tokens() / block_),
      prefix_(prefix_capacity_blocks(c, cost_.kv_capacity_tokens())) {
  // The policies other than continuous batching only know fused prefill.
  if (cfg_.sched.batching != BatchPolicy::continuous) {
    cfg_.sched.prefill_mode = PrefillMode::fused;
    cfg_.sched.kv_allocation = KvAllocation::reserve;
  }
  if (cfg_.sched.prefill_mode == PrefillMode::separate)
    cfg_.sched.kv_allocation = KvAllocation::reserve;
}

int64_t Scheduler::tgi_tokens(const Req& q) const {
  return round_up(q.r.prompt_tokens, block_) + round_up(q.r.max_new_tokens, block_);
}

Admission Scheduler::submit(const SchedRequest& r, TimePoint now) {
  int64_t need = r.prompt_tokens + r.max_new_tokens;
  int64_t cap = cost_.kv_capacity_tokens();
  Req q{r, now};
  const bool separate = cfg_.sched.prefill_mode == PrefillMode::separate;
  const int64_t tgi_budget =
      cfg_.sched.max_batch_total_tokens > 0 ? cfg_.sched.max_batch_total_tokens : cap;
  if (need > cap || (separate && tgi_tokens(q) > tgi_budget) ||
      (cfg_.sched.kv_allocation == KvAllocation::paged &&
       round_up(need, block_) / block_ > total_blocks_))
    return Admission::kv_full;
  int64_t queued = static_cast<int64_t>(pending_.size() + waiting_.size());
  if (cfg_.sched.queue_limit > 0 && queued >= cfg_.sched.queue_limit) return Admission::queue_full;
  if (cfg_.sched.kv_full == KvFullAction::reject && kv_reserved_ + kv_waiting_ + need > cap)
    return Admission::kv_full;
  kv_waiting_ += need;
  // Under the serial lock the overhead runs inside the engine (see admit_front).
  q.ready = cfg_.sched.serial_lock ? now : now + cost_.request_overhead();
  auto it = std::upper_bound(pending_.begin(), pending_.end(), q.ready,
                             [](TimePoint t, const Req& x) { return t < x.ready; });
  pending_.insert(it, std::move(q));
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
  if (!step_end_ && cfg_.sched.batching == BatchPolicy::static_batch && running_.empty() &&
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
      enqueue_waiting(std::move(pending_.front()), false);
      pending_.pop_front();
    }
    if (!step_end_) try_start_step(at, out);
  }
}

void Scheduler::release(Req& q) {
  if (cfg_.sched.kv_allocation == KvAllocation::paged) {
    used_blocks_ -= q.blocks;
    q.blocks = 0;
  } else {
    kv_reserved_ -= q.kv_need();
  }
}

void Scheduler::finish_step(TimePoint t, std::vector<SchedEvent>& out) {
  busy_done_ += t - step_start_;
  step_end_.reset();
  for (auto& q : running_) {
    bool token = q.decoding;
    q.decoding = false;
    if (q.chunk > 0) {
      q.todo -= q.chunk;
      prefill_tokens_ += q.chunk;
      q.chunk = 0;
      token = q.todo == 0;  // the step that completes the prompt samples its next token
      if (token) prefix_.insert(q.r.prefix_blocks, static_cast<int64_t>(q.r.prefix_blocks.size()));
    }
    if (!token || q.cancelled) continue;
    ++q.generated;
    out.push_back({SchedEvent::Kind::token, q.r.id, t, q.generated, step_batch_,
                   q.generated >= q.r.output_tokens, 0});
  }
  auto done = [&](const Req& q) { return q.cancelled || q.generated >= q.r.output_tokens; };
  for (auto& q : running_)
    if (done(q)) release(q);
  running_.erase(std::remove_if(running_.begin(), running_.end(), done), running_.end());
  if (step_kind_ == StepKind::prefill) waiting_tokens_ = 1;
  if (step_kind_ == StepKind::decode) {
    ++waiting_tokens_;
    may_concat_ = true;
  }
}

void Scheduler::try_start_step(TimePoint t, std::vector<SchedEvent>& out) {
  switch (cfg_.sched.prefill_mode) {
    case PrefillMode::fused:
      return start_fused(t, out);
    case PrefillMode::separate:
      return start_separate(t, out);
    case PrefillMode::chunked:
      return start_chunked(t, out);
  }
}

bool Scheduler::fits_now(const Req& q) const {
  if (cfg_.sched.kv_allocation == KvAllocation::paged)
    return used_blocks_ + round_up(q.context(), block_) / block_ <= total_blocks_;
  return kv_reserved_ + q.kv_need() <= cost_.kv_capacity_tokens();
}

Nanos Scheduler::admit_front(TimePoint t, std::vector<SchedEvent>& out) {
  Req q = std::move(waiting_.front());
  waiting_.pop_front();
  kv_waiting_ -= q.kv_need();
  if (cfg_.sched.kv_allocation == KvAllocation::paged) {
    q.blocks = round_up(q.context(), block_) / block_;
    used_blocks_ += q.blocks;
  } else {
    kv_reserved_ += q.kv_need();
  }
  int64_t cached = 0;
  if (cfg_.sched.prefix_caching && !q.r.prefix_blocks.empty())
    cached = std::clamp<int64_t>(prefix_.match(q.r.prefix_blocks) * block_, 0, q.context() - 1);
  prefix_hit_tokens_ += cached;
  q.todo = q.context() - cached;
  q.chunk = 0;
  q.decoding = false;
  Nanos overhead{0};
  if (!q.admitted) {
    q.admitted = true;
    out.push_back({SchedEvent::Kind::admitted, q.r.id, t, 0, 0, false, cached});
    if (cfg_.sched.serial_lock) overhead = cost_.request_overhead();
  }
  running_.push_back(std::move(q));
  return overhead;
}

void Scheduler::preempt_back() {
  Req q = std::move(running_.back());
  running_.pop_back();
  release(q);
  q.todo = q.chunk = 0;
  q.decoding = false;
  kv_waiting_ += q.kv_need();
  ++preemptions_;
  enqueue_waiting(std::move(q), true);
}

void Scheduler::enqueue_waiting(Req q, bool front) {
  const int64_t p = q.r.priority;
  // With one priority this is push_front / push_back, without a scan.
  if (front) {  // ahead of every waiting request of its priority or a less urgent one
    auto it = std::find_if(waiting_.begin(), waiting_.end(),
                           [&](const Req& w) { return w.r.priority >= p; });
    waiting_.insert(it, std::move(q));
    return;
  }
  // Behind every waiting request of its priority or a more urgent one.
  auto it = std::find_if(waiting_.rbegin(), waiting_.rend(),
                         [&](const Req& w) { return w.r.priority <= p; });
  waiting_.insert(it.base(), std::move(q));
}

void Scheduler::grow_or_preempt() {
  for (size_t i = 0; i < running_.size(); ++i) {
    if (running_[i].todo > 0) continue;  // its prompt's blocks came with its admission
    const int64_t need = round_up(running_[i].context(), block_) / block_ - running_[i].blocks;
    if (need <= 0) continue;
    while (used_blocks_ + need > total_blocks_ && running_.size() > i + 1) preempt_back();
    if (used_blocks_ + need > total_blocks_) {  // it is the most recent itself
      preempt_back();
      break;
    }
    used_blocks_ += need;
    running_[i].blocks += need;
  }
}

int64_t Scheduler::resident_tokens() const {
  int64_t k = 0;
  for (const auto& q : running_) k += q.context() - q.todo;
  return k;
}

void Scheduler::begin(TimePoint t, Nanos dur, StepKind kind) {
  step_start_ = t;
  step_end_ = t + dur;
  step_batch_ = static_cast<int>(running_.size());
  step_kind_ = kind;
}

void Scheduler::start_fused(TimePoint t, std::vector<SchedEvent>& out) {
  bool may_admit = true;
  if (cfg_.sched.batching == BatchPolicy::static_batch) {
    may_admit =
        running_.empty() && !waiting_.empty() &&
        (static_cast<int>(waiting_.size()) >= batch_cap_ || t >= waiting_.front().ready + window_);
  }
  const int64_t preempted_before = preemptions_;
  if (cfg_.sched.kv_allocation == KvAllocation::paged) grow_or_preempt();
  may_admit = may_admit && preemptions_ == preempted_before;  // vLLM: no admission that step
  const size_t first_event = out.size();
  Nanos dur{0};
  int64_t new_prompt = 0;
  double new_pairs = 0;
  bool any_new = false;
  while (may_admit && !waiting_.empty() && static_cast<int>(running_.size()) < batch_cap_ &&
         fits_now(waiting_.front())) {
    dur += admit_front(t, out);
    Req& q = running_.back();
    q.chunk = q.todo;
    new_prompt += q.todo;
    new_pairs += chunk_pairs(q);
    any_new = true;
  }
  if (running_.empty()) return;
  int64_t resident = 0, decoders = 0;
  for (auto& q : running_) {
    q.decoding = q.chunk == 0;
    if (q.r.encode_only) continue;  // pooled at its prefill's end: no decode, no KV read
    ++decoders;
    resident += q.context();
  }
  if (any_new) dur += cost_.prefill(new_prompt, new_pairs);
  if (decoders > 0) dur += cost_.decode_step(decoders, resident);
  stamp_admitted(out, first_event, running_.size());
  begin(t, dur, StepKind::fused);
}

std::optional<Nanos> Scheduler::tgi_next_batch(std::optional<size_t> min_size, TimePoint t,
                                               std::vector<SchedEvent>& out) {
  if (waiting_.empty() || (min_size && waiting_.size() < *min_size)) return std::nullopt;
  int64_t budget = cfg_.sched.max_batch_total_tokens > 0 ? cfg_.sched.max_batch_total_tokens
                                                         : cost_.kv_capacity_tokens();
  for (const auto& q : running_) budget -= tgi_tokens(q);
  int64_t prefill = 0, total = 0;
  size_t n = 0;
  for (const auto& q : waiting_) {
    if (static_cast<int>(running_.size() + n) >= batch_cap_) break;
    prefill += round_up(q.r.prompt_tokens, block_);
    total += tgi_tokens(q);
    if ((cfg_.sched.max_batch_prefill_tokens > 0 &&
         prefill > cfg_.sched.max_batch_prefill_tokens) ||
        total > budget)
      break;
    ++n;
  }
  if (n == 0 || (min_size && n < *min_size)) return std::nullopt;
  Nanos overhead{0};
  for (size_t i = 0; i < n; ++i) overhead += admit_front(t, out);
  return overhead;
}

void Scheduler::start_separate(TimePoint t, std::vector<SchedEvent>& out) {
  const size_t first_event = out.size();
  const bool idle = running_.empty();
  std::optional<Nanos> admitted;
  if (idle) {
    admitted = tgi_next_batch(std::nullopt, t, out);
  } else if (may_concat_) {
    std::optional<size_t> min_size;
    if (waiting_tokens_ < cfg_.sched.max_waiting_tokens)
      min_size = static_cast<size_t>(
          std::floor(static_cast<double>(running_.size()) * cfg_.sched.waiting_served_ratio));
    admitted = tgi_next_batch(min_size, t, out);
  }
  if (admitted) {  // a prefill of the new requests only; the running batch waits
    int64_t prompt = 0;
    double pairs = 0;
    for (auto& q : running_) {
      q.chunk = q.todo;
      prompt += q.chunk;
      pairs += chunk_pairs(q);
    }
    may_concat_ = idle;  // after a prefill that joined a running batch comes a decode step
    stamp_admitted(out, first_event, running_.size());
    begin(t, *admitted + cost_.prefill(prompt, pairs), StepKind::prefill);
    return;
  }
  if (running_.empty()) return;
  for (auto& q : running_) q.decoding = true;
  begin(t, cost_.decode_step(static_cast<int64_t>(running_.size()), resident_tokens()),
        StepKind::decode);
}

void Scheduler::start_chunked(TimePoint t, std::vector<SchedEvent>& out) {
  const int64_t preempted_before = preemptions_;
  if (cfg_.sched.kv_allocation == KvAllocation::paged) grow_or_preempt();
  const int64_t resident = resident_tokens();
  int64_t budget = cfg_.sched.max_num_batched_tokens;
  int64_t decode = 0, prompt = 0;
  for (auto& q : running_)
    if (q.todo == 0) {
      q.decoding = true;
      ++decode;
      --budget;
    }
  double pairs = 0;
  for (auto& q : running_)
    if (q.todo > 0 && budget > 0) {
      q.chunk = std::min(q.todo, budget);
      budget -= q.chunk;
      prompt += q.chunk;
      pairs += chunk_pairs(q);
    }
  const size_t first_event = out.size();
  Nanos dur{0};
  while (preemptions_ == preempted_before && budget > 0 && !waiting_.empty() &&
         static_cast<int>(running_.size()) < batch_cap_ && fits_now(waiting_.front())) {
    dur += admit_front(t, out);
    Req& q = running_.back();
    q.chunk = std::min(q.todo, budget);
    budget -= q.chunk;
    prompt += q.chunk;
    pairs += chunk_pairs(q);
  }
  if (decode == 0 && prompt == 0) return;
  dur += cost_.mixed_step(decode, resident, prompt, pairs);
  stamp_admitted(out, first_event, running_.size());
  begin(t, dur, StepKind::chunked);
}

SchedStats Scheduler::stats() const {
  SchedStats s;
  s.waiting = static_cast<int64_t>(pending_.size() + waiting_.size());
  s.running = static_cast<int64_t>(running_.size());
  s.kv_used_tokens =
      cfg_.sched.kv_allocation == KvAllocation::paged ? used_blocks_ * block_ : kv_reserved_;
  s.kv_capacity_tokens = cost_.kv_capacity_tokens();
  for (const auto& q : running_) {
    s.batch_max_tokens += q.kv_need();
    s.resident_kv_tokens += q.context() - q.todo;
  }
  s.busy = step_end_.has_value();
  s.busy_total = busy_done_;
  s.preemptions = preemptions_;
  s.prefill_tokens = prefill_tokens_;
  s.prefix_hit_tokens = prefix_hit_tokens_;
  return s;
}

}  // namespace sb::sim
