#pragma once
// --gpu-telemetry (and a plan's gpu_telemetry): which GPU source a run samples. Pure, so that
// the plan loader (and its fuzz target) checks the value with no telemetry code linked.
#include <string>

namespace sb::telemetry {

enum class GpuMode { automatic, nvml, nvidia_smi, dcgm, off };

// Parses nvml | nvidia-smi | dcgm:URL | off | auto ("" = auto) into `mode` and, for dcgm,
// `url`. Throws sb::Error (usage) naming the accepted values.
void parse_gpu_mode(const std::string& text, GpuMode& mode, std::string& url);

}  // namespace sb::telemetry
