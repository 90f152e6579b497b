#pragma once
// Multi-turn sessions (--session-concurrency, docs/workloads.md): how many turns a session
// has (--turns, a length spec of workload/length_spec.h) and how long its user thinks between
// an answer and the next turn (--think-time). Pure: parsing and seeded draws only.
//
// Think time syntax (durations as common/units.h reads them: 500ms, 2s, 1.5m; a bare number
// is seconds):
//   D  or  fixed:D       always D (0: the next turn is sent as soon as the answer ended)
//   exp:D                exponential with mean D
//   uniform:A-B          uniform in [A, B]
#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "workload/length_spec.h"
#include "workload/rng.h"

namespace sb::workload {

struct ThinkTime {
  enum class Kind { fixed, exp, uniform };
  Kind kind = Kind::fixed;
  Nanos min = Nanos::zero();   // fixed: the value; uniform: the lower bound
  Nanos max = Nanos::zero();   // uniform: the upper bound; fixed: == min
  Nanos mean = Nanos::zero();  // exp: the mean

  // A think time drawn from the distribution; never negative.
  Nanos sample(Rng& rng) const;
  // The spec in canonical syntax, durations in seconds ("exp:2s").
  std::string to_string() const;
};

// Throws sb::Error (usage) naming --think-time and the accepted forms.
ThinkTime parse_think_time(std::string_view text);

inline constexpr int64_t kMaxTurns = 10'000;

// --turns: N or a length spec (uniform:min=2,max=8, empirical:1,3,5, ...), turns 1..10,000.
// Throws sb::Error (usage) naming --turns.
LengthSpec parse_turns(std::string_view text);

struct SessionSpec {
  int64_t concurrency = 0;  // sessions in flight (a closed loop over sessions); 0: no sessions
  LengthSpec turns = LengthSpec::fixed_tokens(3);
  ThinkTime think;
  std::string header;  // --session-header NAME: sent with the session id; empty: none

  bool enabled() const { return concurrency > 0; }
  // Session `session`'s turn count, drawn from `turns` seeded by (seed, session).
  int64_t turns_of(uint64_t seed, uint64_t session) const;
  // The think time before turn `turn` (>= 1) of session `session`, seeded by all three.
  Nanos think_before(uint64_t seed, uint64_t session, int64_t turn) const;
};

}  // namespace sb::workload
