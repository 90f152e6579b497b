#include "plan/run_telemetry.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/redact.h"
#include "results/output_file.h"

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
  if (!config.jsonl_path.empty()) {
    try {
      const int fd = results::open_output_file(config.jsonl_path, /*overwrite=*/true);
      tel_->stream_to(std::make_unique<telemetry::JsonlStream>(fd, config.jsonl_path));
    } catch (const Error& e) {  // not fatal: finish() writes the file at the end instead
      fmt::print(stderr, "servebench: telemetry.jsonl not streamed: {}\n", redact_text(e.what()));
    }
  }
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
  const std::string path = dir + "/telemetry.jsonl";
  if (const telemetry::JsonlStream* s = tel_->stream(); s && s->path() == path) {
    if (!s->ok()) fmt::print(stderr, "servebench: {}\n", redact_text(s->error()));
  } else if (!tel_->write_jsonl(path)) {
    fmt::print(stderr, "servebench: cannot write {}\n", path);
  }
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
