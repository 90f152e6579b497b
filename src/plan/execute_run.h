#pragma once
// One measured run into its own folder, as `servebench prof` writes it (requests.jsonl,
// summary.json, summary.csv), for `sweep` and `run`. Starts the run's simulators when the
// target is a simulator preset, and stops them after.
#include <atomic>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine_config.h"
#include "metrics/goodput.h"
#include "metrics/run_summary.h"
#include "plan/providers.h"

namespace sb::plan {

struct RunSpec {
  engine::EngineConfig engine;  // load, workload, protocol; the target unless provider/sim say
  metrics::Slo slo;
  const Provider* provider = nullptr;  // points engine at it (apply_provider)
  std::string sim_preset;              // start simulators and target them
  int sim_replicas = 1;
  double sim_time_scale = 1.0;
  std::string dir;                                   // created; must not hold a run already
  nlohmann::json labels = nlohmann::json::object();  // merged into summary.json's config
  bool print_progress = false;
};

// The numbers an index row and the saturation search need.
struct Headline {
  int64_t requests = 0, ok = 0, failed = 0;
  std::optional<double> ttft_p50_ms, ttft_p99_ms, e2e_p50_ms, e2e_p99_ms, tpot_p99_ms;
  std::optional<double> qps, output_tokens_per_s, goodput_fraction;
  double error_rate = 0;  // failed / requests (1 when nothing was measured)
};
Headline headline_of(const metrics::RunSummary& s);
// Whether the run met every SLO given: the p99 of each bounded metric within its bound.
bool slo_met(const metrics::RunSummary& s, const metrics::Slo& slo);

struct RunOutcome {
  bool ok = false;    // measured and written (errors inside the run are in its numbers)
  int exit_code = 0;  // non-zero when !ok (sb::ExitCode)
  std::string error;  // when !ok
  bool interrupted = false;
  std::optional<metrics::RunSummary> summary;
  Headline headline;
};

// Never throws for a failing target: the failure is in the outcome.
RunOutcome execute_run(const RunSpec& spec, const std::atomic<bool>* stop);

}  // namespace sb::plan
