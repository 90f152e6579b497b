#pragma once
// The figures `servebench calibrate` compares at each load level: TTFT, TPOT and e2e at p50,
// p90 and p99 (ms) and output tokens/s, in model time (a time-scaled simulator's wall-clock
// figures divided by its scale), as summary.json defines them (metrics::summarize_run).
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"
#include "results/summary_read.h"

namespace sb::calibrate {

// The compared metrics, in table order.
inline constexpr std::array<std::string_view, 10> kMetricNames = {
    "ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p90_ms",
    "tpot_p99_ms", "e2e_p50_ms",  "e2e_p90_ms",  "e2e_p99_ms",  "output_tokens_per_s"};

// Whether the fit minimises a metric's error (each level's medians, p90s and throughput) or only
// reports it (the p99s). The p99 of a level's few dozen requests is its slowest one or two: the
// real server's noise (the OS, the garbage collector, the client beside it), which a
// deterministic model reproduces only as far as queueing makes it; a fit that also weighs it
// moves the centre toward it (examples/backends/pytorch_native.py at one stream: TPOT p50
// 1.85 ms, p99 2.65; the step fitted on all ten figures was 2.22 ms, and its forecasts of other
// levels 7-21% slow). The p90s stay: they carry the workload's spread (the prompt lengths that
// fix the prefill slope, mfu).
inline constexpr std::array<bool, kMetricNames.size()> kFitted = {true,  true, false, true,  true,
                                                                  false, true, true,  false, true};

// One value per kMetricNames entry; nullopt when the run has no such figure (no request with
// two tokens has no TPOT).
using LevelMetrics = std::array<std::optional<double>, kMetricNames.size()>;

// From a summary.json. `time_scale` (RunFacts::time_scale(), 1 for real servers): durations
// are divided by it and rates multiplied, so the figures are in model time.
LevelMetrics metrics_of_summary(const results::SummaryView& s, double time_scale);

// From a run's records (warm-up ones skipped), as summary.json would give them.
LevelMetrics metrics_of_records(const std::vector<metrics::RequestRecord>& records);

}  // namespace sb::calibrate
