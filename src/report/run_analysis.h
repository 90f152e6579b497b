#pragma once
// Across-run analysis for the report: SLA checks, grouping runs into (backend, scenario)
// series over load, peak throughput, the highest stable load and a recommendation.
//
// Definitions (the report's glossary repeats them):
//   - error rate of a run = run.requests.failed / run.requests.total (measured requests);
//   - a run is "stable" (load_rules.h stable_load) when it has measured requests, every SLO
//     passes and its error rate is at most max_error_rate (default 5%, the plan's). The SLOs
//     are the --sla rules, else the run's own --goodput bounds as P99 limits (as the plan
//     runner checks them); a time-scaled simulator's run is checked in model time
//     (latencies ÷ S, rates × S; time_scale.h);
//   - the max stable load of a (backend, scenario) group is the highest load L such that the
//     run at L and every run of the group at a lower load are stable (a load above a failing
//     one does not count, however it did);
//   - peak QPS is the highest throughput.requests_per_s among the group's runs, with its load.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_folder.h"

namespace sb::report {

// One --sla rule. Forms (limits in the metric's unit):
//   STAT_METRIC:LIMIT   latency upper bound, STAT in mean|p50|p90|p95|p99|p999|max, METRIC in
//                       ttft_ms|ttft_content_ms (TTFO)|tpot_ms|itl_ms|e2e_ms|scheduled_e2e_ms|
//                       reasoning_ms (TTFO - TTFT; a run in which nothing reasoned has none)
//                       (e.g. "p99_e2e_ms:200": P99 end-to-end latency <= 200 ms)
//   error_rate_pct:LIMIT     error rate in percent <= LIMIT
//   min_rps:LIMIT            throughput.requests_per_s >= LIMIT
//   min_goodput_pct:LIMIT    goodput.fraction in percent >= LIMIT
struct SlaRule {
  std::string text;    // as given
  std::string metric;  // "e2e_ms", "error_rate_pct", "min_rps", "min_goodput_pct"
  std::string stat;    // "p99" for latency rules, "" otherwise
  double limit = 0;
  bool at_least = false;         // true: value >= limit passes; false: value <= limit passes
  bool missing_passes = false;   // a run without the number passes (a --goodput tpot bound)
  std::string describe() const;  // "P99 e2e <= 200 ms"
};
// Throws sb::usage_error (exit code 2) naming the flag and the accepted forms.
SlaRule parse_sla(std::string_view text);

struct SlaResult {
  SlaRule rule;
  std::optional<double> value;  // in model time (÷ S, rates × S); nullopt: no such number
  bool pass = false;
};
std::vector<SlaResult> check_sla(const results::SummaryView& summary,
                                 const std::vector<SlaRule>& rules);
std::vector<SlaResult> check_sla(const nlohmann::json& summary, const std::vector<SlaRule>& rules);

// The rules a run is held to: `given` when not empty, else its summary's goodput.slo bounds
// (ttft_ms, tpot_ms, e2e_ms) as P99 limits.
std::vector<SlaRule> effective_rules(const results::SummaryView& summary,
                                     const std::vector<SlaRule>& given);
std::vector<SlaRule> effective_rules(const nlohmann::json& summary,
                                     const std::vector<SlaRule>& given);

// Fraction, nullopt if empty (results::error_rate of the typed summary).
std::optional<double> error_rate(const nlohmann::json& summary);
// stable_load over effective_rules(summary, rules).
bool is_stable(const results::SummaryView& summary, const std::vector<SlaRule>& rules,
               double max_error_rate);
bool is_stable(const nlohmann::json& summary, const std::vector<SlaRule>& rules,
               double max_error_rate);

// The runs of one backend and scenario at one kind of load, sorted by load.
struct RunGroup {
  std::string backend, scenario, load_kind;
  std::vector<const RunData*> runs;
  std::string name() const;  // "backend · scenario"
};
// Groups in first-seen order.
std::vector<RunGroup> group_runs(const std::vector<RunData>& runs);

// "concurrency 16" / "16 req/s" / "concurrent users" wording for a load kind.
std::string load_label(const std::string& kind, double value);

}  // namespace sb::report
