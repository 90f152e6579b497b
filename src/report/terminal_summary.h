#pragma once
// The fixed-width summary table printed at the end of a run.
//
// Layout (every latency in ms; "-" where undefined):
//   requests line (total / ok / failed / warm-up, success rate, window)
//   a latency table with columns mean, p50, p90, p99, max and rows ttft, ttfo (ttft_content,
//   only when it differs from ttft), reasoning (TTFO - TTFT, only when some request reasoned),
//   tpot, itl, e2e, scheduled_e2e, dispatch_delay; a "Reasoning:" tokens line when some did
//   throughput (req/s, input/output/total tok/s), goodput (req/s, fraction, the SLO),
//   with --priority-mix a "Priority:" fairness line and one line per class (requests, ok,
//   ttft and e2e p50/p99, goodput),
//   errors by class, load (target vs achieved rate, or concurrency), late sends.
#include <string>

#include "metrics/run_summary.h"

namespace sb::report {

std::string format_terminal_summary(const metrics::RunSummary& summary);

}  // namespace sb::report
