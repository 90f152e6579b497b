#pragma once
// `servebench monitor`: the telemetry samplers alone, with no load (watch a server in
// production for an interval), writing summary.json (telemetry section) and
// telemetry.jsonl like a `prof` run. Also home of the telemetry flags that `prof` and
// `monitor` share.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/engine.h"
#include "telemetry/live_metrics.h"
#include "telemetry/metrics_server.h"
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

std::function<int()> add_monitor_command(CLI::App& root);

// `prof`'s telemetry around one run: the samplers (started on the engine's run_start), the
// live endpoint fed from the workers' on_record, and the final push.
class RunTelemetry {
 public:
  // `default_metrics_url`: scraped when no --server-metrics is given (the --sim simulator).
  RunTelemetry(const TelemetryFlags& flags, const std::string& default_metrics_url, int workers,
               std::string provider, std::string scenario);
  // Wraps hooks.on_record / on_progress (keeping what they did) and sets on_start.
  void attach(engine::RunHooks& hooks);
  // Stops the samplers and the endpoint, writes DIR/telemetry.jsonl, pushes, prints the
  // warnings; returns summary.json's `telemetry`.
  nlohmann::json finish(const std::string& dir);

 private:
  TelemetryFlags flags_;
  std::unique_ptr<telemetry::Telemetry> tel_;
  std::unique_ptr<telemetry::LiveMetrics> live_;
  std::unique_ptr<telemetry::MetricsServer> server_;
};

}  // namespace sb::cli
