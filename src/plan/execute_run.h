#pragma once
// One measured run into its own folder: the one function behind `prof` (a one-run plan),
// every level of `sweep` and every run of `run`, in this process or split over the ranks of
// an mpirun job (run_executor.h). Its steps, in order:
//   simulators (preset, replicas, seed) -> the target resolved and validated -> the folder
//   -> requests.jsonl streamed as requests end -> telemetry started on the engine's clock
//   -> the engine -> records read back from requests.jsonl -> telemetry.jsonl
//   -> summary.json / summary.csv -> the outcome and its exit code (exit_code_of).
// A feature added to a run is added here once and exists under every command.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/engine_config.h"
#include "metrics/goodput.h"
#include "metrics/run_summary.h"
#include "plan/economics_config.h"
#include "plan/providers.h"
#include "plan/run_telemetry.h"
#include "sim/catalog.h"

namespace sb::sim {
class Server;
struct SimConfig;
}  // namespace sb::sim
namespace sb::engine {
struct RunResult;
}

namespace sb::plan {

// The embedded simulators a run targets (prof --sim, a provider's `sim:`).
struct SimTarget {
  // The preset name, or for a catalog choice its label (sim::label_of); empty: no simulator.
  std::string preset;
  // A catalog choice (prof --sim-gpu ..., providers.yaml `sim: {engine: vllm, gpu: H100, ...}`):
  // the simulators are sim::config_of(*choice) instead of the preset; names resolved.
  std::optional<sim::SimChoice> choice;
  int replicas = 1;  // load-balanced simulators, seeds seed, seed + 1, ...
  double time_scale = 1.0;
  std::optional<uint64_t> seed;  // its output text's seed; empty: the preset's own
  int64_t reasoning_length = 0;  // sim text.reasoning_length (prof --sim-reasoning-length)
};

// The simulator config of replica `replica` (0-based) of `target` (seed + replica), on
// 127.0.0.1 with an ephemeral port, validated: what the live simulators and `predict` run.
// From target.choice when set (sim::config_of), else the preset. Throws sb::Error (usage) for
// an unknown preset or catalog name, a model that does not fit, or a bad value.
sim::SimConfig sim_config_of(const SimTarget& target, int replica);
// The target of a catalog choice: `choice` resolved (sim::resolved) and its label as preset;
// checked (sim::config_of). Throws sb::Error (usage) as sim_config_of does.
SimTarget catalog_target(const sim::SimChoice& choice);

struct RunSpec {
  engine::EngineConfig engine;  // load, workload, protocol; the target unless provider/sim say
  metrics::Slo slo;
  const Provider* provider = nullptr;  // points engine at it (apply_provider)
  SimTarget sim;
  RunTelemetryConfig telemetry;
  // Price, idle power and hardware labels: summary.json's `energy` and `cost`
  // (plan/run_economics.h); a provider's own fields of providers.yaml override these.
  EconomicsConfig economics;
  // Exit code error_rate when more than this fraction of measured requests failed (prof's
  // --max-error-rate); < 0: no such gate.
  double max_error_rate = -1;
  // Exit code client_limited when the client-health verdict found the client the bottleneck
  // (prof --strict-client; metrics/client_health.h).
  bool strict_client = false;
  std::string dir;                                   // created; must not hold a run already
  nlohmann::json labels = nlohmann::json::object();  // merged into summary.json's config
  std::string provider_label;                        // names the run's series on the live endpoint
  bool print_progress = false;                       // live progress on stderr (the leader's)
  // `servebench predict`: the run in virtual time against `sim` (src/predict) instead of live
  // simulators: no sockets, no telemetry, model time (sim.time_scale 1); summary.json's config
  // says `predicted: true`. A target that is not a simulator is a usage error.
  bool predict = false;
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
// `time_scale`: a time-scaled simulator's (its SLOs are model time: p99 / S is compared, as
// the report does); 1 for real time.
bool slo_met(const metrics::RunSummary& s, const metrics::Slo& slo, double time_scale = 1.0);

struct RunOutcome {
  bool ok = false;    // measured and written (errors inside the run are in its numbers)
  int exit_code = 0;  // sb::ExitCode: non-zero when !ok; error_rate also when ok
  std::string error;  // when exit_code != 0
  bool interrupted = false;
  std::optional<metrics::RunSummary> summary;
  Headline headline;
  bool slo_met = false;  // slo_met(*summary, spec.slo, scale); false when nothing measured
};

// Never throws for a failing target: the failure is in the outcome.
RunOutcome execute_run(const RunSpec& spec, const std::atomic<bool>* stop);
// Throws sb::Error (usage) unless `spec` can run in virtual time (RunSpec::predict): a
// simulated target, and only what predict models (predict::check_modelled).
void check_predictable(const RunSpec& spec);

// The steps of execute_run, for an executor that splits a run over processes
// (src/mpi/executor.cc).

// The simulators of a run whose target is a preset (spec.sim: replicas of them on 127.0.0.1,
// ephemeral ports, seeds seed + i); none otherwise, and none for a predicted run (its servers
// are virtual). Throws sb::Error when one cannot start.
class RunSimulators {
 public:
  explicit RunSimulators(const RunSpec& spec);
  ~RunSimulators();  // stops them
  RunSimulators(const RunSimulators&) = delete;
  RunSimulators& operator=(const RunSimulators&) = delete;
  const std::vector<std::string>& urls() const { return urls_; }
  std::vector<std::string> metrics_urls() const;  // their /metrics (the run's telemetry)
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
// The telemetry of a run of `spec` against `engine` (the leader's), not started yet. Against
// a simulator at time scale S < 1 the interval is multiplied by S (at least 20 ms), so that
// a run compressed S times still gets its samples per model second.
std::unique_ptr<RunTelemetry> open_telemetry(const RunSpec& spec,
                                             const engine::EngineConfig& engine,
                                             const RunSimulators& sims);

// The one exit-code table of a measured run (every command, every executor), first match:
//   interrupted                                   -> interrupted (130), !ok
//   no request succeeded, some failed to connect  -> unreachable (3), !ok
//   failed / total > spec.max_error_rate (>= 0)   -> error_rate (4), ok (it was measured)
//   strict_client and client_health.client_limited -> client_limited (8), ok (measured)
//   otherwise                                     -> 0
// `error` is set to the sentence saying why.
int exit_code_of(const metrics::RunSummary& summary, bool interrupted, double max_error_rate,
                 std::string* error, bool strict_client = false);
// The outcome of a run that was measured and written: its headline, SLO verdict and exit code.
RunOutcome outcome_of(metrics::RunSummary summary, bool interrupted, const RunSpec& spec);

}  // namespace sb::plan
