#pragma once
// `servebench monitor`: the telemetry samplers alone, with no load (watch a server in
// production for an interval), writing summary.json (telemetry section) and
// telemetry.jsonl like a `prof` run. Also home of the telemetry flags that `prof` and
// `monitor` share.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "plan/run_telemetry.h"
#include "telemetry/telemetry.h"

namespace sb::cli {

struct TelemetryFlags {
  std::string interval = "1000";  // ms
  std::string gpu = "auto";       // nvml | nvidia-smi | dcgm:URL | off | auto
  std::vector<std::string> server_metrics;
  int server_pid = 0;
  int metrics_port = -1;  // -1: no live endpoint; 0: ephemeral
  std::string metrics_host = "127.0.0.1";
  std::string pushgateway;
};

void add_telemetry_flags(CLI::App& app, TelemetryFlags& flags);
// Throws sb::Error (usage) naming the flag.
telemetry::TelemetryConfig to_telemetry_config(const TelemetryFlags& flags);
// The same with the live endpoint and the push (what a run's telemetry needs).
plan::RunTelemetryConfig to_run_telemetry_config(const TelemetryFlags& flags);

std::function<int()> add_monitor_command(CLI::App& root);

}  // namespace sb::cli
