#include "metrics/session_stats.h"

#include <algorithm>
#include <map>

namespace sb::metrics {
namespace {

struct SessionSeen {
  int64_t planned = 0, ok = 0;
  int64_t first_sched_ns = INT64_MAX, last_end_ns = INT64_MIN;
};

}  // namespace

std::optional<SessionStats> summarize_sessions(const std::vector<const RequestRecord*>& measured) {
  std::map<int64_t, SessionSeen> sessions;
  std::vector<std::vector<const RequestRecord*>> turns;
  for (const RequestRecord* r : measured) {
    if (r->session_id < 0 || r->turn < 0) continue;
    SessionSeen& s = sessions[r->session_id];
    s.planned = std::max<int64_t>(s.planned, r->session_turns);
    s.ok += r->ok() ? 1 : 0;
    const int64_t start = r->t_sched_ns != kNoTime ? r->t_sched_ns : r->t_send_ns;
    if (start != kNoTime) s.first_sched_ns = std::min(s.first_sched_ns, start);
    if (r->t_end_ns != kNoTime) s.last_end_ns = std::max(s.last_end_ns, r->t_end_ns);
    if (static_cast<size_t>(r->turn) >= turns.size())
      turns.resize(static_cast<size_t>(r->turn) + 1);
    turns[static_cast<size_t>(r->turn)].push_back(r);
  }
  if (sessions.empty()) return std::nullopt;

  SessionStats out;
  out.sessions = static_cast<int64_t>(sessions.size());
  std::vector<double> durations;
  for (const auto& [id, s] : sessions) {
    out.turns_ok += s.ok;
    if (s.planned > 0 && s.ok == s.planned) {
      ++out.completed;
      if (s.first_sched_ns != INT64_MAX && s.last_end_ns >= s.first_sched_ns)
        durations.push_back(static_cast<double>(s.last_end_ns - s.first_sched_ns) / 1e9);
    }
  }
  out.duration_s = distribution_of(std::move(durations));

  for (size_t k = 0; k < turns.size(); ++k) {
    TurnStats t;
    t.turn = static_cast<int>(k);
    std::vector<double> ttft, input;
    int64_t reported_input = 0;
    for (const RequestRecord* r : turns[k]) {
      ++t.requests;
      if (!r->ok()) {
        ++out.turns_failed;
        continue;
      }
      ++t.ok;
      if (const auto v = r->ttft_ms()) ttft.push_back(*v);
      input.push_back(static_cast<double>(r->input_tokens));
      t.input_tokens_sum += r->input_tokens;
      t.history_tokens_sum += std::max<int64_t>(0, r->history_tokens);
      if (r->server.cached_tokens >= 0) {
        ++t.cached_reported;
        t.cached_tokens_sum += r->server.cached_tokens;
        reported_input += r->input_tokens;
      }
    }
    t.ttft_ms = distribution_of(std::move(ttft));
    t.input_tokens = distribution_of(std::move(input));
    if (t.input_tokens_sum > 0)
      t.ideal_hit_rate =
          static_cast<double>(t.history_tokens_sum) / static_cast<double>(t.input_tokens_sum);
    if (reported_input > 0)
      t.cached_hit_rate =
          static_cast<double>(t.cached_tokens_sum) / static_cast<double>(reported_input);
    out.by_turn.push_back(std::move(t));
  }
  return out;
}

}  // namespace sb::metrics
