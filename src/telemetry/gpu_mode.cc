#include "telemetry/gpu_mode.h"

#include <fmt/format.h>

#include "common/error.h"

namespace sb::telemetry {

void parse_gpu_mode(const std::string& t, GpuMode& mode, std::string& url) {
  if (t == "auto" || t.empty())
    mode = GpuMode::automatic;
  else if (t == "nvml")
    mode = GpuMode::nvml;
  else if (t == "nvidia-smi")
    mode = GpuMode::nvidia_smi;
  else if (t == "off")
    mode = GpuMode::off;
  else if (t.starts_with("dcgm:") && t.size() > 5) {
    mode = GpuMode::dcgm;
    url = t.substr(5);
  } else {
    throw usage_error(
        fmt::format("--gpu-telemetry '{}': expected nvml, nvidia-smi, dcgm:URL (e.g. "
                    "dcgm:http://127.0.0.1:9400/metrics) or off",
                    t));
  }
}

}  // namespace sb::telemetry
