#pragma once
// GPU readings, from one of three sources behind one interface (docs/architecture.md: a seam with
// a fake): NVML loaded at run time with dlopen (no build dependency on NVIDIA packages),
// `nvidia-smi --query-gpu ... -lms N` as a child process, or a DCGM exporter's /metrics.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "telemetry/series_store.h"

namespace sb::telemetry {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// One device at one instant; NaN where the source does not report a field.
struct GpuReading {
  int index = 0;
  std::string name;
  double sm_util_pct = kNoValue;   // % of time a kernel ran (NVML utilization.gpu)
  double mem_util_pct = kNoValue;  // % of time device memory was read or written
  double mem_used_bytes = kNoValue, mem_total_bytes = kNoValue;
  double power_w = kNoValue;
  double temperature_c = kNoValue;
  double sm_clock_mhz = kNoValue;
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // Current readings of every device; false with `error` set when none could be taken.
  virtual bool sample(std::vector<GpuReading>& out, std::string& error) = 0;
  virtual std::string describe() const = 0;  // "nvml (2 devices: NVIDIA A10G, ...)"
};

// NVML through dlopen. `library` empty: $SERVEBENCH_NVML_LIBRARY when set (tests point it at
// a fake), else "libnvidia-ml.so.1". nullptr with `error` set when the library is missing,
// lacks a symbol, or nvmlInit fails.
std::unique_ptr<GpuSource> open_nvml(const std::string& library, std::string& error);

// `nvidia-smi --query-gpu=index,name,utilization.gpu,utilization.memory,memory.used,
// memory.total,power.draw,temperature.gpu,clocks.sm --format=csv,noheader,nounits -lms N`
// as a child process; the binary is $SERVEBENCH_NVIDIA_SMI when set (tests), else nvidia-smi
// on PATH. nullptr with `error` when it cannot start. The child runs in its own process group;
// one that writes nothing for `hang_after` (0: 10 s or 10 intervals, the longer) is killed
// with SIGKILL and its samples fail from then on ("nvidia-smi wrote nothing for ..."); the
// source's destruction ends the group (SIGTERM, SIGKILL after 0.5 s, reaped) without waiting
// for the child's output to end, so a hung nvidia-smi never holds the end of a run.
std::unique_ptr<GpuSource> open_nvidia_smi(Nanos interval, std::string& error,
                                           Nanos hang_after = Nanos::zero());
// One CSV line of that query -> a reading; false when it does not parse.
bool parse_nvidia_smi_line(std::string_view line, GpuReading& out);

// A DCGM exporter's /metrics (DCGM_FI_DEV_* gauges, label gpu="N").
std::unique_ptr<GpuSource> open_dcgm(const std::string& url, Nanos timeout);
// The readings a DCGM exporter page holds (FB_USED/FB_FREE in MiB -> bytes).
std::vector<GpuReading> readings_from_dcgm(const PromPage& page);

// Adds one sample of every device to the store: source "gpu", names sm_util_pct,
// mem_util_pct, mem_used_bytes, mem_total_bytes, power_w, temperature_c, sm_clock_mhz,
// label device="N".
void record_gpu(const std::vector<GpuReading>& readings, int64_t t_ns, SeriesStore& store);

}  // namespace sb::telemetry
