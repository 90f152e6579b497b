#pragma once
// The power series of a run's telemetry.jsonl (series_store.h, one point per line), for the
// energy figures (metrics/energy.h):
//   - gpu: source "gpu", name "power_w" (NVML, nvidia-smi or a DCGM exporter through
//     --gpu-telemetry), one series per device label;
//   - gauge: name "DCGM_FI_DEV_POWER_USAGE" from any other source (a /metrics page scraped:
//     a DCGM exporter, or the simulator's modelled power, live or predicted), one series per
//     source and label set.
// Series are keyed as in telemetry.jsonl ("gpu/power_w{device=\"0\"}"), points in file order.
// Lines that do not parse, and null values, are skipped. An unreadable file gives none.
#include <string>
#include <vector>

#include "metrics/energy.h"

namespace sb::telemetry {

struct PowerLog {
  std::vector<metrics::PowerSeries> gpu, gauge;
};

PowerLog read_power_log(const std::string& telemetry_jsonl);

}  // namespace sb::telemetry
