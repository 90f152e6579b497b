#pragma once
// index.json and index.csv at the top of a plan (or sweep) folder: one row per run
// (provider, scenario, stage, load level, folder, status, headline metrics) and one per
// saturation / rate search. Rewritten atomically after every run, so a plan that dies
// half-way still lists every run it completed.
//
// index.json: {"schema": "servebench.plan-index/1", "plan", "started_at", "finished",
//   "runs": [{provider, scenario, stage, kind, load_kind, load_level, folder, status, error,
//             cold_start_s, requests, ttft_p50_ms, ttft_p99_ms, e2e_p50_ms, e2e_p99_ms,
//             qps, output_tokens_per_s, error_rate, goodput_fraction, slo_met}],
//   "searches": [{provider, scenario, stage, kind, knee, peak_qps, peak_level, max_stable,
//                 stop_reason}]}
// index.csv: the runs, one row each, the same fields (empty = undefined).
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
};

struct SearchRow {
  std::string provider, scenario, stage;
  std::string kind;  // "saturation" | "rate_search"
  std::optional<double> knee;
  double peak_qps = 0, peak_level = 0;
  std::optional<double> max_stable;
  std::string stop_reason;
};

class PlanIndex {
 public:
  PlanIndex(std::string dir, std::string plan_name);
  void add(IndexRow row);
  void add(SearchRow row);
  // Writes index.json and index.csv (atomically); `finished` marks the end of the plan.
  void write(bool finished) const;
  const std::vector<IndexRow>& runs() const { return runs_; }
  const std::vector<SearchRow>& searches() const { return searches_; }
  // The comparison table (provider x scenario: P99 e2e at the baseline load, peak QPS and
  // where, knee, max stable: a search's, else the highest sweep level meeting the SLOs with
  // at most 5% errors), plain text.
  std::string comparison_table() const;

 private:
  std::string dir_, plan_, started_at_;
  std::vector<IndexRow> runs_;
  std::vector<SearchRow> searches_;
};

}  // namespace sb::plan
