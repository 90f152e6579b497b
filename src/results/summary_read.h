#pragma once
// The typed reader of summary.json (schema of results/summary_json.h): what `report`,
// `compare`, `summarize`, plans and `merge` read from a run, instead of string paths.
//
// Contract:
//   - summary_from_json never throws for content: a key that is absent, null, of another type
//     or not finite reads as an empty optional (older folders, hand-written summaries), so a
//     reader sees exactly what a lookup of that path would have found. A JSON value that is
//     not an object reads as an empty view.
//   - Numbers keep the contract's types: counts are integers, everything else doubles.
//   - summary_to_json -> summary_from_json gives back every field of the RunSummary and of the
//     RunInfo that summary.json carries (tests/results/summary_read_test.cc).
//   - `config` and `host` stay JSON (written "as given"); the facts consumers use from config
//     are typed in RunFacts. `telemetry` stays JSON: its schema is src/telemetry's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/goodput.h"
#include "results/economics_json.h"

namespace sb::results {

// {"count", "mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max"}.
struct DistributionView {
  std::optional<int64_t> count;
  std::optional<double> mean, stddev, min, p50, p90, p95, p99, p999, max;
  // "mean" | "stddev" | "min" | "p50" | "p90" | "p95" | "p99" | "p999" | "max"; else nullopt.
  std::optional<double> stat(std::string_view name) const;
};

struct MetricsView {
  DistributionView ttft_ms, ttft_content_ms, tpot_ms, itl_ms, e2e_ms, scheduled_e2e_ms,
      dispatch_delay_ms, input_tokens, output_tokens;
  DistributionView reasoning_tokens, reasoning_ms;  // absent (empty) when no request reasoned
  // By summary.json name ("e2e_ms"); nullptr for a name that is not a metric.
  const DistributionView* find(std::string_view name) const;
};

struct RequestsView {
  std::optional<int64_t> total, ok, failed, warmup;
};

struct ThroughputView {
  std::optional<double> window_s, requests_per_s, input_tokens_per_s, output_tokens_per_s,
      total_tokens_per_s;
  std::optional<double> items_per_s;  // embeddings / rerank runs only
};

struct GoodputView {
  metrics::Slo slo;
  std::optional<int64_t> good;
  std::optional<double> requests_per_s, fraction;
};

struct LoadView {
  std::string mode;  // "closed" | "open"; "" when absent
  std::optional<double> concurrency, target_rate, max_concurrency, achieved_rate;
  std::optional<int64_t> late_sends;
};

struct TokenSourcesView {
  std::map<std::string, int64_t> counts;
  std::optional<int64_t> discrepancy_count;
  std::map<std::string, int64_t> discrepancy_pairs;
  std::optional<double> mean_abs_tokens, mean_abs_rel;
};

struct QualityView {
  std::optional<double> bleu, chrf, rouge_l, exact_match;
  std::optional<int64_t> scored, empty_references;
};

using ErrorsView = std::map<std::string, int64_t>;  // class -> count; non-numbers skipped

struct ClassView {
  RequestsView requests;
  MetricsView metrics;
  ThroughputView throughput;
  ErrorsView errors;
  std::optional<QualityView> quality;
};

struct TimeBucketView {
  std::optional<double> t_s;
  std::optional<int64_t> started, completed, errors, in_flight;
  std::optional<double> requests_per_s, output_tokens_per_s, ttft_mean_ms, ttft_p99_ms;
  // By summary.json name ("requests_per_s", "ttft_p99_ms", "in_flight", ...); else nullopt.
  std::optional<double> field(std::string_view name) const;
};

// The facts of a run its config carries (labels of plans and sweeps, simulator settings).
struct RunFacts {
  std::optional<std::string> provider, scenario, stage;  // plan / sweep labels
  std::optional<std::string> sim_preset;                 // "tgi" for `--sim tgi`
  std::optional<std::string> base_url;
  std::optional<std::string> workload_scenario;  // config.workload.scenario (`prof --scenario`)
  std::optional<double> workload_input_tokens, workload_output_tokens;
  // config.workload.input_dist / output_dist / shared_prefix (empty or absent: not used)
  std::optional<std::string> workload_input_dist, workload_output_dist, workload_shared_prefix;
  std::optional<double> sim_time_scale;  // as written; see time_scale()
  std::optional<uint64_t> sim_seed;
  std::optional<int64_t> sim_replicas;
  std::optional<double> max_error_rate;  // the stability limit the run was held to
  // Hardware comparison labels (providers.yaml hardware/precision, prof --hardware/--precision;
  // filled from a `sim:` catalog choice) and the GPUs the run used (config.gpus).
  std::optional<std::string> hardware, precision;
  std::optional<int64_t> gpus;
  // sim_time_scale when it is > 0, else 1 (real time, real servers).
  double time_scale() const;
};

// The per-rank block of a distributed run (mpi/rank_merge.h).
struct RankView {
  std::optional<int64_t> rank;
  std::optional<std::string> host, name, state, error;
  std::optional<bool> interrupted;
  std::optional<double> clock_offset_ms, clock_uncertainty_ms;
  std::optional<int64_t> records;
  RequestsView requests;
  ThroughputView throughput;  // requests_per_s, output_tokens_per_s
  MetricsView metrics;        // ttft_ms, e2e_ms, dispatch_delay_ms
  std::optional<double> achieved_rate;
  std::optional<int64_t> late_sends;
};

struct DistributedView {
  std::optional<int64_t> ranks_total, ranks_done;
  std::optional<std::string> clock;
  std::vector<RankView> ranks;
};

struct SummaryView {
  std::optional<std::string> schema;
  std::optional<std::string> tool_name, tool_version;
  nlohmann::json config = nlohmann::json::object();  // as written; typed parts in `facts`
  nlohmann::json host = nlohmann::json::object();
  RunFacts facts;
  // "run"
  std::optional<std::string> started_at;
  std::optional<double> duration_s;
  std::optional<bool> interrupted;
  std::optional<double> bucket_interval_ms, success_rate;
  RequestsView requests;
  std::optional<bool> incomplete;          // distributed runs: run.incomplete
  std::vector<std::string> missing_ranks;  // and run.missing_ranks
  MetricsView metrics;
  ThroughputView throughput;
  GoodputView goodput;
  LoadView load;
  ErrorsView errors;
  TokenSourcesView token_sources;
  std::optional<QualityView> quality;
  std::map<std::string, ClassView> classes;  // every key of "classes", whatever its value
  std::vector<TimeBucketView> timeseries;
  nlohmann::json telemetry;  // null when the run has none
  std::optional<DistributedView> distributed;
  std::optional<EnergyView> energy;  // summary.json `energy` (economics_json.h)
  std::optional<CostView> cost;      // summary.json `cost`
};

SummaryView summary_from_json(const nlohmann::json& summary);

// The error rate of a run: failed / total of its measured requests; nullopt when either is
// missing or total is 0.
std::optional<double> error_rate(const SummaryView& s);

}  // namespace sb::results
