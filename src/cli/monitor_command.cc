#include "cli/monitor_command.h"

#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "cli/signals.h"
#include "common/error.h"
#include "common/units.h"
#include "common/wall_clock.h"
#include "engine/config_json.h"
#include "metrics/run_summary.h"
#include "results/run_outputs.h"

namespace sb::cli {

void add_telemetry_flags(CLI::App& app, TelemetryFlags& f) {
  app.add_option("--telemetry-interval", f.interval, "Telemetry sampling interval in ms")
      ->capture_default_str();
  app.add_option("--gpu-telemetry", f.gpu,
                 "GPU source: nvml | nvidia-smi | dcgm:URL | off (default: nvml when it loads)")
      ->capture_default_str();
  app.add_option("--server-metrics", f.server_metrics,
                 "Prometheus /metrics URL of the server to scrape (repeatable)");
  app.add_option("--server-pid", f.server_pid, "Also sample CPU and memory of this process");
  app.add_option("--metrics-port", f.metrics_port,
                 "Serve live Prometheus metrics on this port (0: ephemeral, URL printed)");
  app.add_option("--metrics-host", f.metrics_host, "Address for --metrics-port")
      ->capture_default_str();
  app.add_option("--pushgateway", f.pushgateway,
                 "Push final metrics to this Prometheus Pushgateway URL");
}

telemetry::TelemetryConfig to_telemetry_config(const TelemetryFlags& f) {
  telemetry::TelemetryConfig c;
  c.interval = from_ms(parse_duration_ms(f.interval, "--telemetry-interval"));
  if (c.interval < std::chrono::milliseconds(10))
    throw usage_error("--telemetry-interval: at least 10 (ms)");
  telemetry::parse_gpu_mode(f.gpu, c);
  for (const auto& u : f.server_metrics) {
    if (!u.starts_with("http://") && !u.starts_with("https://"))
      throw usage_error(fmt::format("--server-metrics '{}': expected http://HOST:PORT/metrics", u));
    c.server_urls.push_back(u);
  }
  if (f.server_pid < 0) throw usage_error("--server-pid: a process id");
  c.server_pid = f.server_pid;
  if (f.metrics_port > 65535) throw usage_error("--metrics-port: 0..65535");
  return c;
}

plan::RunTelemetryConfig to_run_telemetry_config(const TelemetryFlags& f) {
  plan::RunTelemetryConfig c;
  c.samplers = to_telemetry_config(f);
  c.metrics_port = f.metrics_port;
  c.metrics_host = f.metrics_host;
  c.pushgateway = f.pushgateway;
  return c;
}

namespace {

struct MonitorFlags {
  TelemetryFlags telemetry;
  std::string duration = "60s";
  std::string output_dir;
};

int run_monitor(const MonitorFlags& f) {
  plan::RunTelemetryConfig rc = to_run_telemetry_config(f.telemetry);
  const telemetry::TelemetryConfig& tc = rc.samplers;
  const Nanos duration = from_s(parse_duration_s(f.duration, "--duration"));
  const std::string dir = f.output_dir.empty() ? create_default_run_dir("monitor") : f.output_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw usage_error(fmt::format("--output-dir '{}': cannot create it ({})", dir, ec.message()));

  // The samplers, the live endpoint and the push exactly as around a measured run.
  rc.jsonl_path = dir + "/telemetry.jsonl";
  plan::RunTelemetry tel(rc, {}, 1, "monitor", "monitor");
  engine::RunHooks hooks;
  tel.attach(hooks);
  const std::atomic<bool>& stop = install_stop_handlers();
  const std::string started_at = iso_utc_now();
  const TimePoint start = Clock::now();
  hooks.on_start(start);
  while (!stop.load() && Clock::now() - start < duration)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  nlohmann::json telemetry_json = tel.finish(dir);

  metrics::RunInfo info;
  info.tool_version = SERVEBENCH_VERSION;
  info.config = {{"command", "monitor"},
                 {"duration_s", to_s(duration)},
                 {"server_metrics", tc.server_urls},
                 {"gpu_telemetry", f.telemetry.gpu},
                 {"telemetry_interval_ms", to_ms(tc.interval)}};
  info.host = engine::host_facts();
  info.started_at = started_at;
  info.duration_s = to_s(Clock::now() - start);
  info.interrupted = stop.load();
  info.bucket_interval_ms = 0;
  const size_t series = telemetry_json.value("series", nlohmann::json::array()).size();
  info.telemetry = std::move(telemetry_json);
  results::write_run_outputs(dir, metrics::summarize_run({}, info), info);
  fmt::print(stderr, "servebench: telemetry in {}/ (summary.json, telemetry.jsonl): {} series\n",
             dir, series);
  return 0;
}

}  // namespace

std::function<int()> add_monitor_command(CLI::App& root) {
  auto* app =
      root.add_subcommand("monitor", "Sample GPU, server /metrics and host telemetry, no load");
  auto f = std::make_shared<MonitorFlags>();
  add_telemetry_flags(*app, f->telemetry);
  app->add_option("--duration", f->duration, "How long to watch (e.g. 60s, 1h)")
      ->capture_default_str();
  app->add_option("-o,--output-dir", f->output_dir, "Results folder (default runs/<time>-monitor)");
  return [f] { return run_monitor(*f); };
}

}  // namespace sb::cli
