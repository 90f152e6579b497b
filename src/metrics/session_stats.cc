#include "metrics/session_stats.h"

#include <algorithm>

namespace sb::metrics {

void SessionAccumulator::add(const RequestRecord& r) {
  if (r.session_id < 0 || r.turn < 0) return;
  Seen& s = sessions_[r.session_id];
  s.planned = std::max<int64_t>(s.planned, r.session_turns);
  s.ok += r.ok() ? 1 : 0;
  const int64_t start = r.t_sched_ns != kNoTime ? r.t_sched_ns : r.t_send_ns;
  if (start != kNoTime) s.first_sched_ns = std::min(s.first_sched_ns, start);
  if (r.t_end_ns != kNoTime) s.last_end_ns = std::max(s.last_end_ns, r.t_end_ns);
  if (static_cast<size_t>(r.turn) >= turns_.size()) turns_.resize(static_cast<size_t>(r.turn) + 1);
  Turn& t = turns_[static_cast<size_t>(r.turn)];
  ++t.stats.requests;
  if (!r.ok()) {
    ++failed_;
    return;
  }
  ++t.stats.ok;
  if (const auto v = r.ttft_ms()) t.ttft.push_back(*v);
  t.input.push_back(static_cast<double>(r.input_tokens));
  t.stats.input_tokens_sum += r.input_tokens;
  t.stats.history_tokens_sum += std::max<int64_t>(0, r.history_tokens);
  if (r.server.cached_tokens >= 0) {
    ++t.stats.cached_reported;
    t.stats.cached_tokens_sum += r.server.cached_tokens;
    t.reported_input += r.input_tokens;
  }
}

std::optional<SessionStats> SessionAccumulator::finish() {
  if (sessions_.empty()) return std::nullopt;
  SessionStats out;
  out.sessions = static_cast<int64_t>(sessions_.size());
  out.turns_failed = failed_;
  std::vector<double> durations;
  for (const auto& [id, s] : sessions_) {
    out.turns_ok += s.ok;
    if (s.planned > 0 && s.ok == s.planned) {
      ++out.completed;
      if (s.first_sched_ns != INT64_MAX && s.last_end_ns >= s.first_sched_ns)
        durations.push_back(static_cast<double>(s.last_end_ns - s.first_sched_ns) / 1e9);
    }
  }
  out.duration_s = distribution_of(std::move(durations));
  for (size_t k = 0; k < turns_.size(); ++k) {
    Turn& turn = turns_[k];
    TurnStats& t = turn.stats;
    t.turn = static_cast<int>(k);
    t.ttft_ms = distribution_of(std::move(turn.ttft));
    t.input_tokens = distribution_of(std::move(turn.input));
    if (t.input_tokens_sum > 0)
      t.ideal_hit_rate =
          static_cast<double>(t.history_tokens_sum) / static_cast<double>(t.input_tokens_sum);
    if (turn.reported_input > 0)
      t.cached_hit_rate =
          static_cast<double>(t.cached_tokens_sum) / static_cast<double>(turn.reported_input);
    out.by_turn.push_back(std::move(t));
  }
  return out;
}

std::optional<SessionStats> summarize_sessions(const std::vector<const RequestRecord*>& measured) {
  SessionAccumulator a;
  for (const RequestRecord* r : measured) a.add(*r);
  return a.finish();
}

}  // namespace sb::metrics
