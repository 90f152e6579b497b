#pragma once
// The telemetry side channel of one measured run (docs/architecture.md): the samplers (GPU, every
// server /metrics URL, the host and --server-pid), started on the engine's run start and stamped on
// its clock; the live Prometheus endpoint fed from the records as they end; the final push.
// Owned by the process that writes the run's folder (the leader under mpirun).
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "telemetry/live_metrics.h"
#include "telemetry/metrics_server.h"
#include "telemetry/telemetry.h"

namespace sb::plan {

// What a run samples besides its requests: prof's --telemetry-interval, --gpu-telemetry,
// --server-metrics, --server-pid, --metrics-port/--metrics-host, --pushgateway; a plan's
// defaults and providers. Plain values; validated where they are parsed.
struct RunTelemetryConfig {
  telemetry::TelemetryConfig samplers;  // client_workers is set by the run
  int metrics_port = -1;                // -1: no live endpoint; 0: an ephemeral port
  std::string metrics_host = "127.0.0.1";
  std::string pushgateway;  // empty: no push
  bool announce = true;     // print which sources are off (a plan: its first run only)
  // Non-empty: telemetry.jsonl is created there when the RunTelemetry is made and each sample
  // is appended as it is taken (a killed run keeps them); empty: written by finish() only.
  std::string jsonl_path;
};

class RunTelemetry {
 public:
  // `default_metrics_urls` are scraped when the config names no server URL (the run's own
  // simulators' /metrics). `provider` and `scenario` label the live endpoint's series.
  RunTelemetry(const RunTelemetryConfig& config,
               const std::vector<std::string>& default_metrics_urls, int workers,
               std::string provider, std::string scenario);
  // Destroying it without finish() stops the samplers and the endpoint, writing nothing.
  RunTelemetry(const RunTelemetry&) = delete;
  RunTelemetry& operator=(const RunTelemetry&) = delete;

  // Wraps hooks.on_record / on_progress (keeping what they did) and sets on_start.
  void attach(engine::RunHooks& hooks);
  // Stops the samplers and the endpoint, completes DIR/telemetry.jsonl (closes the stream
  // when it is DIR's, else writes every sample), pushes, prints the warnings; returns
  // summary.json's `telemetry`. Call once.
  nlohmann::json finish(const std::string& dir);

 private:
  RunTelemetryConfig config_;
  std::unique_ptr<telemetry::Telemetry> tel_;
  std::unique_ptr<telemetry::LiveMetrics> live_;
  std::unique_ptr<telemetry::MetricsServer> server_;
};

}  // namespace sb::plan
