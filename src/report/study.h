#pragma once
// The reference study's answers (docs/architecture.md, study A) from any set of runs: per backend ×
// scenario, P99 latency and TTFT at a named load, peak QPS and where it occurs, the knee, the
// max stable load and GPU use; and a recommendation per scenario (recommendation.h).
//
// Rules (the report's glossary repeats them):
//   - evidence: a level (one run) is judged only when it has at least min_requests measured
//     requests; a latency cell needs min_requests ok samples. Anything less is shown as
//     "insufficient (n=…)" and never ranked: it is no peak, no stable load, no failure;
//   - stable: load_rules.h stable_load: measured, every SLO met, error rate <= the limit. The
//     SLOs are --sla's rules, else each run's own --goodput bounds read as P99 limits (what
//     the plan runner checks). For a run against a time-scaled simulator the SLOs are checked
//     in model time (latency ÷ S, rates × S: time_scale.h);
//   - max stable load: the highest judged level that is stable, every judged level below it
//     being stable too; the first judged level that is not stable is where the group fails;
//   - sustained: a closed-loop level's throughput is a rate only when each client sent at least
//     kMinRequestsPerClient requests (measured >= that × concurrency); with fewer, the level
//     measured one wave of requests sent together (a batch's timing, not a rate the server
//     sustains): its QPS is shown but is never the peak nor part of the knee;
//   - knee: load_rules.h saturated over consecutive judged, sustained levels (throughput
//     against e2e p50);
//   - peak QPS: the highest throughput.requests_per_s of a judged, sustained level;
//   - the named load: --at-concurrency, else the highest concurrency run by every backend.
// Every cell carries its sample size n and a 95% interval (intervals.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/gpu_use.h"
#include "report/intervals.h"
#include "report/load_rules.h"
#include "report/run_analysis.h"
#include "report/run_folder.h"

namespace sb::report {

struct StudyOptions {
  std::vector<SlaRule> sla;  // empty: each run's own --goodput bounds as P99 limits
  double max_error_rate = kDefaultMaxErrorRate;  // fraction
  int64_t min_requests = kDefaultMinRequests;
  std::optional<double> at_concurrency;  // the named load; nullopt: see above
};

// A number with its sample size and interval (no interval when it came from summary.json
// alone: a run without requests.jsonl).
struct Estimate {
  std::optional<double> value;
  std::optional<Interval> ci;
  int64_t n = 0;
};

// One run of a group: one load level.
struct Level {
  const RunData* run = nullptr;
  double load = 0;
  int64_t measured = 0, ok = 0;
  double error_rate = 0;  // failed / measured (1 when nothing was measured)
  double time_scale = 1;  // the simulator's (1: real time)
  bool judged = false;    // measured >= min_requests
  bool sustained = true;  // open loop, or measured >= kMinRequestsPerClient × concurrency
  bool slo_met = false;
  std::vector<std::string> slo_misses;  // "P99 e2e 3.84 s > 2 s"
  bool stable = false;
  std::string top_error;  // the error class with most failures ("overloaded"), "" if none
  int64_t top_error_count = 0;
  std::optional<double> qps, e2e_p50_ms;
};

struct Group {
  std::string backend, scenario, load_kind;
  std::vector<Level> levels;             // ascending load
  std::optional<size_t> peak;            // the judged level with the highest QPS
  std::optional<double> knee;            // load
  std::optional<double> max_stable;      // load
  std::optional<size_t> first_unstable;  // the judged level where it stops being stable
  const Level* at(double load) const;    // the level at `load`, or nullptr
};

struct Study {
  StudyOptions options;
  std::vector<std::string> backends, scenarios;  // first-seen order
  std::vector<Group> groups;
  std::optional<double> at_load;  // concurrency of the per-load tables
  std::string
      at_load_reason;  // "--at-concurrency" | "the highest concurrency run by every backend"
  std::vector<double> scales;      // distinct simulator time scales != 1
  size_t runs = 0, predicted = 0;  // runs analysed, and how many of them are predictions
  const Group* group(const std::string& backend, const std::string& scenario) const;
};

// Throws sb::usage_error when at_concurrency names a level no run has.
Study analyse_study(const std::vector<RunData>& runs, const StudyOptions& options);

// Estimates of one run (measured ok requests of its requests.jsonl; summary.json's value and
// count, no interval, without it).
Estimate latency_percentile(const RunData& run, const char* metric, double p);  // "e2e_ms"
Estimate throughput_rps(const RunData& run);

// The SLOs a run is held to, in words ("P99 e2e ≤ 20000 ms, error rate ≤ 5%").
std::string slo_words(const Study& study);

}  // namespace sb::report
