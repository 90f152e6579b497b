#pragma once
// GPU use of one run from its summary.json `telemetry` block (src/telemetry: series with
// count/mean/max and, for named series, their points). Sources, first found wins per quantity:
//   - the GPU sampler (source "gpu": NVML or nvidia-smi): sm_util_pct, mem_util_pct,
//     mem_used_bytes;
//   - a DCGM exporter scraped as server metrics (also the simulator's stand-in):
//     DCGM_FI_DEV_GPU_UTIL (%), DCGM_FI_DEV_MEM_COPY_UTIL (%), DCGM_FI_DEV_FB_USED (MiB).
// Several devices (or simulator replicas): peak memory = the largest sample of any one device;
// a utilisation = the mean over every sample of every device.
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::report {

struct GpuUse {
  std::optional<double> mem_used_peak_mib;     // MiB (2^20 bytes)
  std::optional<double> sm_util_mean_pct;      // 0..100
  std::optional<double> mem_bw_util_mean_pct;  // memory-bandwidth (copy) utilisation, 0..100
  int64_t samples = 0;                         // telemetry samples behind the utilisations
  std::vector<double> sm_util_points, mem_bw_util_points;  // the samples, when kept (for CIs)
  bool any() const { return mem_used_peak_mib || sm_util_mean_pct || mem_bw_util_mean_pct; }
};

// Empty (any() false) when the summary has no telemetry or none of these series.
GpuUse gpu_use_of(const nlohmann::json& summary);

}  // namespace sb::report
