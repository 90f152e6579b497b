#pragma once
// index.json and index.csv at the top of a plan (or sweep) folder: one row per run
// (provider, scenario, stage, load level, folder, status, headline metrics) and one per
// saturation / rate search. Rewritten atomically after every run, so a plan that dies
// half-way still lists every run it completed.
//
// index.json: {"schema": "servebench.plan-index/1", "plan", "started_at", "finished",
//   "runs": [{provider, scenario, stage, kind, load_kind, load_level, folder, status, error,
//             cold_start_s, requests, ttft_p50_ms, ttft_p99_ms, e2e_p50_ms, e2e_p99_ms,
//             qps, output_tokens_per_s, error_rate, goodput_fraction, slo_met,
//             gpu_mem_used_peak_mib, sm_util_mean_pct, mem_bw_util_mean_pct, sim_time_scale,
//             hardware, precision, gpus, mean_power_w, energy_j, j_per_output_token,
//             output_tokens_per_j, usd_per_million_output_tokens, usd_per_1000_requests}],
//   "searches": [{provider, scenario, stage, kind, knee, peak_qps, peak_level, max_stable,
//                 stop_reason}]}
// index.csv: the runs, one row each, the same fields (empty = undefined).
// The GPU columns come from the run's summary.json `telemetry` (report/gpu_use.h: peak memory
// used in MiB, mean SM and memory-bandwidth utilisation in %), sim_time_scale from its config
// (1 = real time; absent for runs without a simulator); add() reads them from the folder.
// The energy and cost columns come from its summary.json `energy` and `cost` (model time for a
// time-scaled simulator; null without a figure or a price). index.json also holds
// "at_slo": [{provider, scenario, load_kind, load_level, folder, usd_per_million_output_tokens,
// j_per_output_token, output_tokens_per_s}], per provider and scenario its highest load whose run
// was ok and met the SLOs, and "cheapest": per scenario the provider of those with the lowest
// usd_per_million_output_tokens, with "margin_pct" over the next ({scenario, provider,
// load_level, usd_per_million_output_tokens, next_provider, margin_pct}).
#include <optional>
#include <string>
#include <vector>

#include "plan/execute_run.h"

namespace sb::plan {

struct IndexRow {
  std::string provider, scenario, stage, kind;
  std::string load_kind;  // "concurrency" | "rate"
  double load_level = 0;
  std::string folder;  // relative to the index
  std::string status;  // ok | failed | interrupted
  std::string error;
  std::optional<double> cold_start_s;
  Headline headline;
  bool slo_met = true;
  std::optional<double> gpu_mem_used_peak_mib, sm_util_mean_pct, mem_bw_util_mean_pct;
  std::optional<double> sim_time_scale;  // config.sim_time_scale of the run
  // Energy and cost (summary.json energy, cost, config.hardware/precision/gpus).
  std::string hardware, precision;
  std::optional<double> gpus, mean_power_w, energy_j, j_per_output_token, output_tokens_per_j,
      usd_per_million_output_tokens, usd_per_1000_requests;
};

struct SearchRow {
  std::string provider, scenario, stage;
  std::string kind;  // "saturation" | "rate_search"
  std::optional<double> knee;
  double peak_qps = 0, peak_level = 0;
  std::optional<double> max_stable;
  std::vector<double> one_wave;  // levels not ranked: one wave (plan/saturation.h)
  std::string stop_reason;
};

class PlanIndex {
 public:
  PlanIndex(std::string dir, std::string plan_name);
  // Fills the row's GPU and time-scale fields from DIR/FOLDER/summary.json when it exists.
  void add(IndexRow row);
  void add(SearchRow row);
  // Writes index.json and index.csv (atomically); `finished` marks the end of the plan.
  void write(bool finished) const;
  const std::vector<IndexRow>& runs() const { return runs_; }
  const std::vector<SearchRow>& searches() const { return searches_; }
  // The study's tables and recommendation (report/study_tables.h study_text) over the run
  // folders of the index, plain text for the terminal; the same numbers `servebench report`
  // gives for the folder. Searches' knees and stop reasons follow, one line each.
  std::string comparison_table() const;

 private:
  std::string dir_, plan_, started_at_;
  std::vector<IndexRow> runs_;
  std::vector<SearchRow> searches_;
};

}  // namespace sb::plan
