#pragma once
// What a run is costed at and compared by (plan/run_economics.h): plain settings from prof and
// sweep flags (--cost-per-hour, --instance, --idle-power-w, --hardware, --precision) or a
// provider's providers.yaml fields of the same names (cost_per_hour, instance, idle_power_w,
// hardware, precision).
#include <optional>
#include <string>

namespace sb::plan {

struct EconomicsConfig {
  std::optional<double> cost_per_hour_usd;  // the deployment's price; overrides the instance's
  std::string instance;                     // a price-table entry (metrics/cost.h), "" for none
  std::optional<double> idle_power_w;       // per GPU; else the simulator's, else measured
  // Free labels of the hardware comparison: "1x A10G", "2x H100", "Xeon 8380"; "fp16",
  // "int8", "gptq-4bit", "awq-4bit". Empty: from a simulator catalog choice, else none. A
  // leading "Nx " gives the GPUs the run used.
  std::string hardware, precision;
};

}  // namespace sb::plan
