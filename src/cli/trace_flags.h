#pragma once
// `prof` trace replay flags (--trace, --trace-format, --trace-speedup, --trace-window,
// --trace-block-tokens) -> the run's load and workload (workload/trace.h). Reads the trace
// file; prints its warnings (bad lines by file:line, out-of-order timestamps) to stderr.
#include "cli/prof_options.h"

namespace sb::cli {

// Throws sb::usage_error for a trace flag without --trace, and for --trace with a flag that
// sets its own schedule (--concurrency, --request-rate, --rate-pattern, --arrival other than
// its default, --burstiness).
void check_trace_flags(const ProfFlags& flags);

// With --trace: loads the trace and makes `e` replay it: an open loop on the trace's offsets
// (load.trace_offsets; request_rate its mean rate), num_requests the trace's entries (at most
// -n), --max-concurrency as given, and the workload's prompts from its entries
// (workload.trace, measured from id --warmup). Without --trace: nothing.
void apply_trace_flags(const ProfFlags& flags, engine::EngineConfig& e);

}  // namespace sb::cli
