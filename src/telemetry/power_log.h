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
#include <cstddef>
#include <string>
#include <vector>

#include "metrics/energy.h"

namespace sb::telemetry {

struct PowerLog {
  std::vector<metrics::PowerSeries> gpu, gauge;
};

// Reads the file in blocks of `block_bytes` (whole lines, longer ones read on): a day's
// telemetry.jsonl need not fit in memory; tests give small blocks to split lines everywhere.
PowerLog read_power_log(const std::string& telemetry_jsonl, size_t block_bytes = 4 << 20);

}  // namespace sb::telemetry
