#pragma once
// `prof` session flags (--session-concurrency, --turns, --think-time, --session-header) -> the
// run's load (engine LoadConfig::sessions; workload/session_spec.h).
#include "cli/prof_options.h"

namespace sb::cli {

// Throws sb::usage_error naming the flag: a --turns or --think-time that does not parse, a
// session flag without --session-concurrency, and --session-concurrency with a flag that
// sets its own load (--concurrency, --request-rate, --rate-pattern, --arrival, --burstiness,
// --max-concurrency, --trace).
void check_session_flags(const ProfFlags& flags);

// With --session-concurrency N: a closed loop of N sessions (load.concurrency = N), each of
// --turns turns with --think-time before each later one; num_requests then counts sessions.
// Without it: nothing.
void apply_session_flags(const ProfFlags& flags, engine::EngineConfig& e);

}  // namespace sb::cli
