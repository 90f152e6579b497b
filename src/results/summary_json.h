#pragma once
// summary.json: the versioned output contract of docs/metrics.md ("schema":
// "servebench.summary/1"). Extend it, never rename silently; bump the schema on a breaking change.
//
// {
//   "schema": "servebench.summary/1",
//   "tool":   {"name", "version"},
//   "config": {...}  (as given, then secrets redacted: results/summary_redact.h),
//   "host":   {...},
//   "run":    {"started_at", "duration_s", "interrupted", "bucket_interval_ms",
//              "success_rate" (ok/total or null),
//              "requests": {"total" (measured = ok + failed), "ok", "failed", "warmup"}},
//   "metrics": {"ttft_ms", "ttft_content_ms", "tpot_ms", "itl_ms", "e2e_ms", "scheduled_e2e_ms",
//               "dispatch_delay_ms", "input_tokens", "output_tokens": each
//               {"count", "mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max"},
//               all but count null when count is 0; ttft_content_ms is the TTFO),
//              "reasoning_tokens", "reasoning_ms" (TTFO - TTFT): the same, over the requests
//               that reasoned, present only when some did,
//   "throughput": {"window_s", "requests_per_s", "input_tokens_per_s", "output_tokens_per_s",
//                  "total_tokens_per_s"}  (null when the window is unknown),
//   "goodput": {"slo": {"ttft_ms"?, "tpot_ms"?, "e2e_ms"?}, "good", "requests_per_s",
//               "fraction"}  (null rates when no SLO was given),
//   "load": closed: {"mode": "closed", "concurrency", "achieved_rate", "late_sends"}
//           open:   {"mode": "open", "target_rate", "max_concurrency" (null if none),
//                    "achieved_rate", "late_sends"},
//   "errors": {class: count}  (ok not listed),
//   "trace": {"file", "format", "entries", "lines", "skipped_lines", "out_of_order",
//             "outside_window", "window": {"start_s", "end_s" (null: none)}, "speedup",
//             "span_s", "schedule_lag_ms": {"count", "p50", "p99", "max"} (the measured sends'
//             dispatch delay against the trace), "late_share" (late_sends / count)}
//            (only with --trace),
//   "abandonment": {"after_s", "abandoned", "rate" (abandoned / requests.total or null)}
//                  (only with --abandon-after),
//   "priority_classes": {"classes": [{"name", "priority", "requests", "ok",
//                        "ttft_ms": {"count", "p50", "p99"}, "e2e_ms": {...}, "goodput":
//                        {"good", "requests_per_s", "fraction"} (null without an SLO)}] (most
//                        urgent first), "fairness" (min / max of the classes' goodput
//                        fractions, or null)}  (only with --priority-mix;
//                        metrics/priority_summary.h),
//   "token_sources": {"counts": {source: count}, "discrepancy": {"count", "pairs":
//                     {"tokenizer_vs_usage"...: count}, "mean_abs_tokens", "mean_abs_rel"}},
//   "quality": {"bleu" (corpus, 0..100), "chrf" (0..100), "rouge_l" (mean F1, 0..1),
//               "exact_match" (fraction), "scored", "empty_references"}  (only when requests
//               were scored against references; quality/request_quality.h),
//   "classes": {name: {"requests", "metrics", "throughput", "errors", "quality"?}}
//              (only with > 1 class, or one named class such as a scenario's "chat"),
//   "timeseries": [{"t_s", "started", "completed", "errors", "in_flight", "requests_per_s",
//                   "output_tokens_per_s", "ttft_mean_ms", "ttft_p99_ms"}],
//   "energy": {...}  (when computed: joules over the measured window, J per output token,
//                    tokens per joule, goodput per watt, idle-subtracted; economics_json.h),
//   "cost": {...}    (when a price was given: USD per million output tokens, per 1,000
//                    requests; economics_json.h)
// }
// Every metric's exact meaning is in metrics/run_summary.h and metrics/timeseries.h.
#include <nlohmann/json.hpp>

#include "metrics/run_summary.h"

namespace sb::results {

inline constexpr const char* kSummarySchema = "servebench.summary/1";

// The whole document, passed through redact_summary (results/summary_redact.h) last.
nlohmann::json summary_to_json(const metrics::RunSummary& summary, const metrics::RunInfo& info);

// One distribution as {"count", "mean", ..., "max"} (nulls when empty).
nlohmann::json distribution_to_json(const metrics::Distribution& d);

}  // namespace sb::results
