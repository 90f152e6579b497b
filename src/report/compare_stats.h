#pragma once
// `servebench compare BASELINE CANDIDATE`: the change of each metric from a baseline run to a
// candidate run, with a bootstrap confidence interval.
//
// Metrics (per-request samples from requests.jsonl: measured, ok requests):
//   ttft_p50, ttft_p99, tpot_p50, tpot_p99, e2e_p50, e2e_p99   percentile of the samples
//   itl_p50, itl_p99   percentile of the pooled gaps; resampled by request (cluster bootstrap)
//   throughput_rps     ok requests per second; output_tps: output tokens per second
// change_pct = (candidate - baseline) / baseline * 100, on the values computed here from the
// records (for latencies they equal summary.json's; for throughput see below).
// Confidence interval: percentile bootstrap. Each of `resamples` rounds draws n_baseline
// requests from the baseline and n_candidate from the candidate, with replacement (one seeded
// std::mt19937_64), recomputes both statistics and their change_pct; the interval is the
// (1-c)/2 and (1+c)/2 quantiles of those changes.
// Throughput is resampled through the completions: the ok requests sorted by t_end, each
// paired with the gap since the previous completion; rate = count / sum of gaps (tokens: sum
// of tokens / sum of gaps). Its point value is the measured window's (as summary.json).
// Work cap: a metric whose one round would touch more than ~2e8 / resamples values (ITL of
// runs with millions of gaps) uses fewer rounds (at least 200), reported as `resamples`.
// Large runs: when the two runs hold more than `exact_up_to` resampling units together
// (requests, or completions) or one round would touch more than 20 x that many values (ITL's
// gaps), each round draws the statistics from the bootstrap's normal limit instead of
// resampling, after one sort per run (O(n log n) instead of O(rounds x n); all `resamples`
// rounds). A resampled percentile is then the sorted samples' value at rank r + Z x sd
// (r = p x (n - 1), interpolated), sd = sqrt(n x var(d)), d_i = (values of unit i <= the
// percentile) - p x (values of unit i): sqrt(n p (1 - p)) for one value per request, and the
// cluster bootstrap's spread for ITL's gaps per request; a resampled rate is the ratio of the
// two sums (tokens or requests, and gaps), drawn jointly normal with n x their covariance.
// Within the resampling noise of the bootstrap itself from 20,000 requests on (tested).
// Significant: the interval excludes 0 and |change_pct| >= min_effect_pct (default 5%: smaller
// changes are within run-to-run noise of a shared machine). A regression is a significant
// change in the worse direction (latency up, throughput down).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_folder.h"

namespace sb::report {

struct CompareOptions {
  int resamples = 1000;
  double confidence = 0.95;
  uint64_t seed = 1;
  double min_effect_pct = 5;
  size_t exact_up_to = 100'000;  // resampling units of both runs; see "Large runs" above
};

struct MetricChange {
  std::string name;  // "e2e_p99"
  std::string unit;  // "ms", "req/s", "tok/s"
  bool higher_is_better = false;
  std::optional<double> baseline, candidate;
  std::optional<double> change_pct;
  std::optional<double> ci_low_pct, ci_high_pct;
  int64_t n_baseline = 0, n_candidate = 0;  // samples (requests) behind each value
  int resamples = 0;  // bootstrap rounds used (fewer than asked for very large runs, see .cc)
  bool significant = false;
  bool regression = false;  // significant and worse
};

// Metric names compare knows, in output order.
const std::vector<std::string>& compare_metric_names();

std::vector<MetricChange> compare_runs(const RunData& baseline, const RunData& candidate,
                                       const CompareOptions& options);

// One --fail-on-regression METRIC:PCT: fail when METRIC is a significant regression whose
// worsening exceeds PCT percent. METRIC is a compare metric name or a family ("e2e" = e2e_p50
// and e2e_p99, "throughput" = throughput_rps and output_tps).
struct RegressionGate {
  std::string metric;
  double pct = 0;
};
RegressionGate parse_regression_gate(std::string_view text);  // sb::usage_error when bad

// Messages for the gates that fail ("e2e_p99: +102.3% (CI +95.1% .. +110.0%) > 10%").
std::vector<std::string> failed_gates(const std::vector<MetricChange>& changes,
                                      const std::vector<RegressionGate>& gates);

std::string compare_to_text(const std::vector<MetricChange>& changes, const RunData& baseline,
                            const RunData& candidate, const CompareOptions& options);
nlohmann::json compare_to_json(const std::vector<MetricChange>& changes, const RunData& baseline,
                               const RunData& candidate, const CompareOptions& options);
std::string compare_to_html(const std::vector<MetricChange>& changes, const RunData& baseline,
                            const RunData& candidate, const CompareOptions& options);

// Percentile p of `v` (numpy linear), reordering `v`; v must be non-empty.
double percentile_inplace(std::vector<double>& v, double p);

}  // namespace sb::report
