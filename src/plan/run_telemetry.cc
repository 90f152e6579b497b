#include "plan/run_telemetry.h"

#include <fmt/format.h>

#include "common/redact.h"

namespace sb::plan {

RunTelemetry::RunTelemetry(const RunTelemetryConfig& config,
                           const std::vector<std::string>& default_metrics_urls, int workers,
                           std::string provider, std::string scenario)
    : config_(config) {
  telemetry::TelemetryConfig tc = config.samplers;
  if (tc.server_urls.empty()) tc.server_urls = default_metrics_urls;
  tc.client_workers = workers;
  tel_ = std::make_unique<telemetry::Telemetry>(tc);
  for (const auto& line : tel_->open())
    if (config.announce) fmt::print(stderr, "servebench: {}\n", redact_text(line));
  if (config.metrics_port >= 0) {
    live_ = std::make_unique<telemetry::LiveMetrics>(std::move(provider), std::move(scenario));
    tel_->on_gpu([l = live_.get()](const auto& r) { l->set_gpu(r); });
    server_ = std::make_unique<telemetry::MetricsServer>(config.metrics_host,
                                                         static_cast<uint16_t>(config.metrics_port),
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
    fmt::print(stderr, "servebench: warning: {}\n", redact_text(w.get<std::string>()));
  if (live_ && !config_.pushgateway.empty())
    if (auto err = telemetry::push_to_gateway(config_.pushgateway, live_->render()); !err.empty())
      fmt::print(stderr, "servebench: --pushgateway {}: {}\n", redact_url(config_.pushgateway),
                 redact_text(err));
  if (server_) server_->stop();
  return j;
}

}  // namespace sb::plan
