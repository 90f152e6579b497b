#pragma once
// The report's energy, cost and hardware comparison (docs/reports.md, "Energy, cost and
// hardware"), from each run's summary.json `energy`, `cost` and config labels (hardware,
// precision, gpus; results/economics_json.h). Every rate is in model time for a time-scaled
// simulator (wall rate × S, latency ÷ S; energy and cost are written in model time already).
//
//   hardware table (at the study's named load, backend × scenario): hardware, precision, GPUs,
//     output tok/s and per GPU, TTFT p50, e2e P99, mean power, J per output token (and above
//     idle), $ per million output tokens, and the output agreement with the reference backend
//     (quality/agreement.h: BLEU, chrF, exact match of this run's texts against the
//     reference's run at the same scenario and load; both need --save-outputs and the same
//     prompts, else "—"). The reference is `reference`, else the first backend.
//   cheapest: per scenario, each backend's cost at its highest load meeting the SLOs (the
//     study's max stable load: measured, every SLO met, error rate within the limit, every
//     judged level below it too); the cheapest by $ per million output tokens, and its margin
//     over the next: (next - cheapest) / cheapest. Backends with no such load, or no price,
//     are named as left out.
//   Pareto charts (per scenario, closed-loop runs; x = output tok/s per user = output tok/s ÷
//     concurrency, higher is better): output tok/s per GPU, output tokens per joule (higher
//     is better) and $ per million output tokens (lower is better); one series per backend,
//     every point labelled "backend cN", and the frontier across backends (no other point
//     better on both axes) as the series "Pareto frontier".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_tables.h"
#include "report/run_analysis.h"
#include "report/study.h"

namespace sb::report {

// One run's economics, in model time.
struct RunEconomics {
  std::optional<double> tokens_per_s, tokens_per_s_per_gpu, tokens_per_s_per_user;
  std::optional<double> mean_power_w, j_per_token, j_per_token_above_idle, tokens_per_j;
  std::optional<double> usd_per_million_tokens, usd_per_1000_requests;
  int gpus = 1;
  std::string hardware, precision;
};
RunEconomics economics_of(const RunData& run);

struct CheapestChoice {
  std::string backend;
  double load = 0;
  std::string load_kind;
  double usd_per_million_tokens = 0;
  std::optional<double> tokens_per_s;
};

struct Cheapest {
  std::string scenario;
  std::vector<CheapestChoice> ranked;  // ascending $ per million output tokens
  std::optional<double> margin_pct;    // (ranked[1] - ranked[0]) / ranked[0] × 100
  std::vector<std::string> left_out;   // "tgi (no load met the SLOs)", "vllm (no price)"
  std::string text;                    // one sentence
};

// Per scenario of the study, in its order; a scenario no backend priced is still listed.
std::vector<Cheapest> cheapest_meeting_slo(const Study& study);

// Whether any run has an energy figure or a price (the section is left out otherwise).
bool has_economics(const std::vector<RunData>& runs);

Table hardware_table(const Study& study, const std::string& reference = "");

// (id, svg) of the Pareto charts: "pareto-SC", "pareto-energy-SC", "pareto-cost-SC" (a chart
// without points is left out).
std::vector<std::pair<std::string, std::string>> pareto_charts(const std::vector<RunGroup>& groups);

// For the terminal (plan index): the cheapest lines, one per scenario ("" when no run is priced).
std::string economics_text(const Study& study);

}  // namespace sb::report
