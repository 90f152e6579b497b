#include "cli/monitor_command.h"

#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "cli/signals.h"
#include "common/error.h"
#include "common/units.h"
#include "engine/config_json.h"
#include "metrics/run_summary.h"
#include "report/run_outputs.h"
#include "telemetry/live_metrics.h"
#include "telemetry/metrics_server.h"

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

RunTelemetry::RunTelemetry(const TelemetryFlags& flags, const std::string& default_metrics_url,
                           int workers, std::string provider, std::string scenario)
    : flags_(flags) {
  telemetry::TelemetryConfig tc = to_telemetry_config(flags);
  if (tc.server_urls.empty() && !default_metrics_url.empty())
    tc.server_urls.push_back(default_metrics_url);
  tc.client_workers = workers;
  tel_ = std::make_unique<telemetry::Telemetry>(tc);
  for (const auto& line : tel_->open()) fmt::print(stderr, "servebench: {}\n", line);
  if (flags.metrics_port >= 0) {
    live_ = std::make_unique<telemetry::LiveMetrics>(std::move(provider), std::move(scenario));
    tel_->on_gpu([l = live_.get()](const auto& r) { l->set_gpu(r); });
    server_ = std::make_unique<telemetry::MetricsServer>(flags.metrics_host,
                                                         static_cast<uint16_t>(flags.metrics_port),
                                                         [l = live_.get()] { return l->render(); });
    server_->start();
    fmt::print(stderr, "servebench: live metrics at {}\n", server_->url());
  }
}

void RunTelemetry::attach(engine::RunHooks& hooks) {
  hooks.on_start = [t = tel_.get()](TimePoint run_start) { t->start(run_start); };
  if (!live_) return;
  auto record = hooks.on_record;
  hooks.on_record = [record, l = live_.get()](const metrics::RequestRecord& r) {
    l->observe(r);
    if (record) record(r);
  };
  auto progress = hooks.on_progress;
  hooks.on_progress = [progress, l = live_.get()](const engine::LiveTotals& t) {
    l->set_in_flight(t.in_flight);
    if (progress) progress(t);
  };
}

nlohmann::json RunTelemetry::finish(const std::string& dir) {
  tel_->stop();
  if (live_) live_->set_in_flight(0);
  nlohmann::json j = tel_->to_json();
  if (!tel_->write_jsonl(dir + "/telemetry.jsonl"))
    fmt::print(stderr, "servebench: cannot write {}/telemetry.jsonl\n", dir);
  for (const auto& w : j["warnings"])
    fmt::print(stderr, "servebench: warning: {}\n", w.get<std::string>());
  if (live_ && !flags_.pushgateway.empty())
    if (auto err = telemetry::push_to_gateway(flags_.pushgateway, live_->render()); !err.empty())
      fmt::print(stderr, "servebench: --pushgateway {}: {}\n", flags_.pushgateway, err);
  if (server_) server_->stop();
  return j;
}

namespace {

struct MonitorFlags {
  TelemetryFlags telemetry;
  std::string duration = "60s";
  std::string output_dir;
};

int run_monitor(const MonitorFlags& f) {
  telemetry::TelemetryConfig tc = to_telemetry_config(f.telemetry);
  const Nanos duration = from_s(parse_duration_s(f.duration, "--duration"));
  std::string dir = f.output_dir;
  if (dir.empty()) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    dir = fmt::format("runs/{:04}{:02}{:02}-{:02}{:02}{:02}-monitor", tm.tm_year + 1900,
                      tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw usage_error(fmt::format("--output-dir '{}': cannot create it ({})", dir, ec.message()));

  telemetry::Telemetry tel(tc);
  for (const auto& line : tel.open()) fmt::print(stderr, "servebench: {}\n", line);
  std::unique_ptr<telemetry::LiveMetrics> live;
  std::unique_ptr<telemetry::MetricsServer> server;
  if (f.telemetry.metrics_port >= 0) {
    live = std::make_unique<telemetry::LiveMetrics>("monitor", "monitor");
    tel.on_gpu([l = live.get()](const auto& r) { l->set_gpu(r); });
    server = std::make_unique<telemetry::MetricsServer>(
        f.telemetry.metrics_host, static_cast<uint16_t>(f.telemetry.metrics_port),
        [l = live.get()] { return l->render(); });
    server->start();
    fmt::print(stderr, "servebench: live metrics at {}\n", server->url());
  }
  const std::atomic<bool>& stop = install_stop_handlers();
  const TimePoint start = Clock::now();
  tel.start(start);
  std::string started_at;
  {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    started_at = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900,
                             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  while (!stop.load() && Clock::now() - start < duration)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  tel.stop();
  if (server) server->stop();

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
  info.telemetry = tel.to_json();
  if (!tel.write_jsonl(dir + "/telemetry.jsonl"))
    throw Error(fmt::format("cannot write {}/telemetry.jsonl", dir));
  report::write_run_outputs(dir, metrics::summarize_run({}, info), info);
  for (const auto& w : info.telemetry["warnings"])
    fmt::print(stderr, "servebench: warning: {}\n", w.get<std::string>());
  if (live && !f.telemetry.pushgateway.empty())
    if (auto err = telemetry::push_to_gateway(f.telemetry.pushgateway, live->render());
        !err.empty())
      fmt::print(stderr, "servebench: --pushgateway: {}\n", err);
  fmt::print(stderr, "servebench: telemetry in {}/ (summary.json, telemetry.jsonl): {} series\n",
             dir, tel.store().series_count());
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
