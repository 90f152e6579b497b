#pragma once
// summary.json `sessions` (--session-concurrency, docs/workloads.md): how the measured
// sessions went, and per turn index how TTFT, input length and the server's prefix-cache hits
// grew with the conversation's history. Computed from the records alone (their session_id,
// turn, session_turns and history_tokens), so `summarize` gives the same from requests.jsonl.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "metrics/distribution.h"
#include "metrics/request_record.h"

namespace sb::metrics {

// One turn index over every session that reached it.
struct TurnStats {
  int turn = 0;          // 0: the sessions' first turns
  int64_t requests = 0;  // measured requests of this turn index
  int64_t ok = 0;
  Distribution ttft_ms;       // over the ok ones
  Distribution input_tokens;  // over the ok ones
  // Over the ok ones: their input tokens, their history tokens (the input that repeats the
  // earlier turns' prompts and answers) and, over those whose server reported one
  // (cached_reported of them), the prompt tokens the server's prefix cache served.
  int64_t input_tokens_sum = 0;
  int64_t history_tokens_sum = 0;
  int64_t cached_tokens_sum = 0;
  int64_t cached_reported = 0;
  // history_tokens_sum / input_tokens_sum: the hit rate a cache keeping every earlier turn
  // would reach; undefined with no input.
  std::optional<double> ideal_hit_rate;
  // cached_tokens_sum / the input tokens of the requests that reported a count; undefined
  // when none did.
  std::optional<double> cached_hit_rate;
};

struct SessionStats {
  int64_t sessions = 0;   // distinct sessions with a measured request
  int64_t completed = 0;  // every planned turn sent and ok
  int64_t turns_ok = 0;   // ok measured turns, over all sessions
  int64_t turns_failed = 0;
  // Completed sessions: the first turn's intended send time (t_sched) to the last turn's end,
  // in seconds (think times included).
  Distribution duration_s;
  std::vector<TurnStats> by_turn;  // index = turn
};

// The same one measured record at a time, holding none (run_accumulator.h): per session its
// planned and ok turns and span, per turn index its counters and TTFT / input columns.
class SessionAccumulator {
 public:
  void add(const RequestRecord& r);
  // nullopt when no measured record belonged to a session. Call once.
  std::optional<SessionStats> finish();

 private:
  struct Seen {
    int64_t planned = 0, ok = 0;
    int64_t first_sched_ns = INT64_MAX, last_end_ns = INT64_MIN;
  };
  struct Turn {
    TurnStats stats;
    int64_t reported_input = 0;  // input tokens of the ok turns that reported cached tokens
    std::vector<double> ttft, input;
  };
  std::map<int64_t, Seen> sessions_;
  std::vector<Turn> turns_;
  int64_t failed_ = 0;
};

// nullopt when no measured record belongs to a session.
std::optional<SessionStats> summarize_sessions(const std::vector<const RequestRecord*>& measured);

}  // namespace sb::metrics
