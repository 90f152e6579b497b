#include "telemetry/telemetry.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "telemetry/host_stats.h"

namespace sb::telemetry {

void parse_gpu_mode(const std::string& text, TelemetryConfig& config) {
  parse_gpu_mode(text, config.gpu, config.gpu_url);
}

Telemetry::Telemetry(TelemetryConfig config) : config_(std::move(config)) {
  for (size_t i = 0; i < config_.server_urls.size(); ++i)
    scrapes_.push_back(std::make_unique<ServerScrape>(
        config_.server_urls[i], server_source(i, config_.server_urls.size()), config_.scrape));
}

Telemetry::~Telemetry() {
  stop();
}

std::vector<std::string> Telemetry::open() {
  std::vector<std::string> lines;
  std::string error;
  switch (config_.gpu) {
    case GpuMode::off:
      gpu_off_reason_ = "--gpu-telemetry off";
      return lines;
    case GpuMode::automatic:
    case GpuMode::nvml:
      gpu_ = open_nvml(config_.nvml_library, error);
      break;
    case GpuMode::nvidia_smi:
      gpu_ = open_nvidia_smi(config_.interval, error);
      break;
    case GpuMode::dcgm:
      gpu_ = open_dcgm(config_.gpu_url, config_.scrape.timeout);
      break;
  }
  gpu_counts_.kind = "gpu";
  if (!gpu_) {
    gpu_off_reason_ = error;
    lines.push_back(fmt::format("GPU telemetry off: {}", error));
  } else {
    gpu_counts_.detail = gpu_->describe();
  }
  return lines;
}

void Telemetry::on_gpu(std::function<void(const std::vector<GpuReading>&)> listener) {
  gpu_listener_ = std::move(listener);
}

void Telemetry::stream_to(std::unique_ptr<JsonlStream> stream) {
  stream_ = std::move(stream);
  JsonlStream* out = stream_.get();
  store_.set_point_sink(
      [out](std::string_view prefix, int64_t t_ns, double v) { out->append(prefix, t_ns, v); });
}

void Telemetry::loop(Sleeper& sleeper, const std::function<void(int64_t)>& tick) {
  const TimeSource& clock = sleeper.source();
  for (int64_t k = 0;; ++k) {
    const TimePoint due = run_start_ + k * config_.interval;
    sleeper.sleep_until(due);  // woken early only by stop()
    if (stopping_.load()) return;
    const TimePoint now = clock.now();
    tick(std::chrono::duration_cast<Nanos>(now - run_start_).count());
    if (stream_) stream_->flush();
    // Woken (or a sample ended) more than an interval late: the ticks missed meanwhile are
    // skipped and the next is back on the grid. The late tick itself is taken, so a loaded
    // machine still samples every source.
    if (now - due > config_.interval) k = (now - run_start_) / config_.interval;
  }
}

void Telemetry::spawn(std::function<void(int64_t)> tick) {
  sleepers_.push_back(std::make_unique<Sleeper>(time_source_or_steady(config_.time_source)));
  threads_.emplace_back(
      [this, s = sleepers_.back().get(), tick = std::move(tick)] { loop(*s, tick); });
}

void Telemetry::start(TimePoint run_start) {
  run_start_ = run_start;
  stopping_ = false;
  if (gpu_)
    spawn([this](int64_t t) {
      std::vector<GpuReading> r;
      std::string error;
      if (gpu_->sample(r, error)) {
        ++gpu_counts_.ok;
        record_gpu(r, t, store_);
        if (gpu_listener_) gpu_listener_(r);
      } else {
        ++gpu_counts_.failed;
        gpu_counts_.last_error = error;
      }
    });
  for (auto& s : scrapes_) spawn([this, sp = s.get()](int64_t t) { sp->scrape(t, store_); });
  if (config_.host || config_.server_pid > 0) start_host();
}

// The host sampler: this process's and --server-pid's CPU% (over windows of at least
// min(100 ms, half the interval) on the samplers' clock) and RSS.
void Telemetry::start_host() {
  host_counts_.kind = "host";
  const TimeSource* clock = &time_source_or_steady(config_.time_source);
  // Half an interval: every tick's window qualifies, the one microseconds after start() not.
  const double min_window_s = std::min(0.1, to_s(config_.interval) / 2);
  auto self_cpu = std::make_shared<CpuWindow>(min_window_s);
  auto server_cpu = std::make_shared<CpuWindow>(min_window_s);
  if (const auto t = read_proc(0, *clock)) self_cpu->add(*t);
  if (config_.server_pid > 0)
    if (const auto t = read_proc(config_.server_pid, *clock)) server_cpu->add(*t);
  spawn([this, clock, self_cpu, server_cpu](int64_t t) {
    auto sample = [&](pid_t pid, CpuWindow& cpu, const char* who) {
      const auto now = read_proc(pid, *clock);
      if (!now) {
        ++host_counts_.failed;
        host_counts_.last_error = fmt::format("cannot read /proc/{}", pid);
        return;
      }
      ++host_counts_.ok;
      if (const auto pct = cpu.add(*now))
        store_.add(
            {"host", "cpu_pct", {{"process", who}}, fmt::format("{} CPU", who), "%", "gauge"}, t,
            *pct);
      store_.add(
          {"host", "rss_bytes", {{"process", who}}, fmt::format("{} RSS", who), "bytes", "gauge"},
          t, now->rss_bytes);
    };
    if (config_.host) sample(0, *self_cpu, "client");
    if (config_.server_pid > 0) sample(config_.server_pid, *server_cpu, "server");
  });
}

void Telemetry::stop() {
  stopping_ = true;
  for (auto& s : sleepers_) s->wake();
  for (auto& t : threads_) t.join();
  // One last scrape of each server after the load: the histograms' deltas (the run-level
  // decomposition, metrics/server_histograms.h) then count every request of the run.
  if (!threads_.empty()) {
    const TimePoint now = time_source_or_steady(config_.time_source).now();
    for (auto& sp : scrapes_) sp->scrape((now - run_start_).count(), store_);
  }
  threads_.clear();
  sleepers_.clear();
  if (stream_) stream_->close();
}

std::vector<std::string> Telemetry::warnings() const {
  std::vector<std::string> out;
  const SeriesStats cpu = store_.stats("host/cpu_pct{process=\"client\"}");
  const double limit = 90.0 * std::max(1, config_.client_workers);
  if (cpu.count > 0 && cpu.p50 > limit)
    out.push_back(fmt::format(
        "the client may have been the bottleneck: its CPU use was {:.0f}% of a core (median), "
        "above 90% of one core per worker ({} worker{}); use more --workers or a bigger client",
        cpu.p50, config_.client_workers, config_.client_workers == 1 ? "" : "s"));
  for (const auto& s : scrapes_)
    if (const size_t n = s->ingest().dropped_series(); n > 0)
      out.push_back(fmt::format(
          "server /metrics {} has more than {} series; the rest are dropped ({} not kept)",
          s->url(), s->ingest().max_series(), n));
  for (const auto& s : scrapes_)
    if (s->counts().failed > 0)
      out.push_back(fmt::format("server metrics {}: {} of {} scrapes failed (last: {})", s->url(),
                                s->counts().failed, s->counts().failed + s->counts().ok,
                                s->counts().last_error));
  if (gpu_counts_.failed > 0)
    out.push_back(fmt::format("GPU telemetry: {} samples failed (last: {})", gpu_counts_.failed,
                              gpu_counts_.last_error));
  return out;
}

nlohmann::json Telemetry::to_json() const {
  using nlohmann::json;
  json sources = json::array();
  json gpu = {{"kind", "gpu"},
              {"on", gpu_ != nullptr},
              {"ok", gpu_counts_.ok},
              {"failed", gpu_counts_.failed}};
  if (gpu_)
    gpu["detail"] = gpu_counts_.detail;
  else
    gpu["off_reason"] = gpu_off_reason_;
  if (!gpu_counts_.last_error.empty()) gpu["last_error"] = gpu_counts_.last_error;
  sources.push_back(gpu);
  for (const auto& s : scrapes_) {
    json j = {{"kind", "server"},
              {"url", s->url()},
              {"ok", s->counts().ok},
              {"failed", s->counts().failed},
              {"last_ms", s->counts().last_ms}};
    if (!s->counts().last_error.empty()) j["last_error"] = s->counts().last_error;
    if (s->ingest().dropped_series() > 0) j["dropped_series"] = s->ingest().dropped_series();
    sources.push_back(j);
  }
  if (config_.host || config_.server_pid > 0)
    sources.push_back({{"kind", "host"},
                       {"ok", host_counts_.ok},
                       {"failed", host_counts_.failed},
                       {"server_pid", config_.server_pid}});
  const SeriesStats cpu = store_.stats("host/cpu_pct{process=\"client\"}");
  return telemetry_block(config_.interval, std::move(sources), store_,
                         cpu.count > 0 && cpu.p50 > 90.0 * std::max(1, config_.client_workers),
                         warnings());
}

nlohmann::json telemetry_block(Nanos interval, nlohmann::json sources, const SeriesStore& store,
                               bool client_bottleneck, const std::vector<std::string>& warnings) {
  return {{"interval_ms", to_ms(interval)},         {"sources", std::move(sources)},
          {"series", store.series_json()},          {"histograms", store.histograms_json()},
          {"client_bottleneck", client_bottleneck}, {"warnings", warnings}};
}

}  // namespace sb::telemetry
