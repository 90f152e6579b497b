#pragma once
// One measured run into its own folder, as `servebench prof` writes it (requests.jsonl,
// summary.json, summary.csv), for `sweep` and `run`. Starts the run's simulators when the
// target is a simulator preset, and stops them after.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine_config.h"
#include "metrics/goodput.h"
#include "metrics/run_summary.h"
#include "plan/providers.h"

namespace sb::sim {
class Server;
}
namespace sb::engine {
struct RunResult;
}

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
  bool slo_met = false;  // slo_met(*summary, spec.slo); false when nothing was measured
};

// Never throws for a failing target: the failure is in the outcome.
RunOutcome execute_run(const RunSpec& spec, const std::atomic<bool>* stop);

// The steps of execute_run, for an executor that splits a run over processes
// (src/mpi/distributed_plan.cc).

// The simulators of a run whose target is a preset (spec.sim_preset, sim_replicas of them on
// 127.0.0.1, ephemeral ports); none otherwise. Throws sb::Error when one cannot start.
class RunSimulators {
 public:
  explicit RunSimulators(const RunSpec& spec);
  ~RunSimulators();  // stops them
  RunSimulators(const RunSimulators&) = delete;
  RunSimulators& operator=(const RunSimulators&) = delete;
  const std::vector<std::string>& urls() const { return urls_; }
  void stop();

 private:
  std::vector<std::unique_ptr<sim::Server>> servers_;
  std::vector<std::string> urls_;
};

// spec.engine pointed at its target (the provider, else the simulators at `sim_urls`) and
// validated. Throws sb::Error (usage).
engine::EngineConfig resolve_engine(const RunSpec& spec, const std::vector<std::string>& sim_urls);
// What summary.json reports about a run of `spec`: engine::run_info plus the spec's labels.
metrics::RunInfo run_info(const RunSpec& spec, const engine::EngineConfig& engine,
                          const engine::RunResult& result);
// The outcome of a run that was measured and written: its headline and SLO verdict, ok
// unless interrupted or every request failed to connect (then exit code unreachable).
RunOutcome outcome_of(metrics::RunSummary summary, bool interrupted, const metrics::Slo& slo);

}  // namespace sb::plan
