#pragma once
// The flags of prof and sweep that cost a run and label it for the hardware comparison
// (plan/economics_config.h, plan/run_economics.h): --cost-per-hour USD, --instance NAME (the
// price table of metrics/cost.h; `prof --list-instances` prints it), --idle-power-w W, --hardware
// LABEL, --precision LABEL.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "plan/economics_config.h"

namespace sb::cli {

struct EconomicsFlags {
  std::optional<double> cost_per_hour;
  std::string instance;
  std::optional<double> idle_power_w;
  std::string hardware, precision;
};

void add_economics_flags(CLI::App& app, EconomicsFlags& flags);
// Validated: a price and an idle power >= 0, a known instance. Throws sb::Error (usage) naming
// the flag and the accepted values.
plan::EconomicsConfig to_economics_config(const EconomicsFlags& flags);
// The price table as text (name, GPUs, USD per hour, what it is), with its date and source.
std::string instance_table_text();

}  // namespace sb::cli
