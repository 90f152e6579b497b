#pragma once
// summary.json's `energy` and `cost` of one measured run (docs/metrics.md, "Energy and
// cost"), added by execute_run after the summary is computed and before it is written; every
// command (prof, sweep, run, predict) gets them so.
//
//   power:  the run's telemetry.jsonl (telemetry/power_log.h). A simulated target uses its
//           modelled power (the DCGM_FI_DEV_POWER_USAGE gauge of its /metrics, each series
//           counting the replica's tensor-parallel GPUs); any other target its GPU telemetry
//           (NVML, nvidia-smi, DCGM), else a scraped DCGM_FI_DEV_POWER_USAGE gauge.
//   window: the measured window (first t_send .. last t_end of measured requests); gaps
//           longer than 2.5 telemetry intervals are counted (metrics/energy.h).
//   idle:   per GPU, the first of: the config's idle_power_w (--idle-power-w, providers.yaml
//           idle_power_w); the simulator's idle figure; the lowest power sampled at or
//           before the first send (warm-up included), averaged over the series.
//   cost:   the config's cost_per_hour, else its instance's price (metrics/cost.h); none: no
//           `cost` block.
//   labels: config.hardware, config.precision (given, else from a simulator catalog choice:
//           "2x H100", "fp8"), config.gpus (a leading "Nx" of hardware, else the instance's
//           GPUs, else a simulator's tp x replicas, else the power series' GPUs, else 1),
//           config.cost_per_hour and config.instance when given.
// A time-scaled simulator's figures are in model time (window ÷ S).
#include <cstdint>
#include <optional>
#include <string>

#include "metrics/request_record.h"
#include "metrics/run_summary.h"
#include "plan/execute_run.h"

namespace sb::plan {

// The provider's fields over the spec's (a provider field given wins).
EconomicsConfig economics_of(const RunSpec& spec);

// GPUs named by a hardware label's leading "Nx" ("2x H100" -> 2); nullopt without one.
std::optional<int> gpus_of_label(const std::string& hardware);

// What add_economics needs of the records, gathered one at a time (every record of the run,
// warm-up included).
struct EconomicsWindow {
  int64_t start_ns = metrics::kNoTime, end_ns = metrics::kNoTime;  // measured requests
  int64_t first_send_ns = metrics::kNoTime;                        // any request, warm-up included
  double output_tokens = 0;                                        // of measured ok requests
  void add(const metrics::RequestRecord& r);
};

// Sets summary.energy and summary.cost and the labels above in info.config. Never throws for
// missing telemetry: the energy block then says why it has no figure.
void add_economics(const RunSpec& spec, const EconomicsWindow& w, metrics::RunSummary& summary,
                   metrics::RunInfo& info);

}  // namespace sb::plan
