#include "telemetry/live_metrics.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "common/prom_histogram.h"
#include "telemetry/prom_text.h"

namespace sb::telemetry {
namespace {

const std::vector<double> kDurationBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                             2.5,   5,    10,    30,   60,  120,  300};
const std::vector<double> kTtftBounds = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                         0.5,   1,     2.5,  5,     10,   30,  60};
const std::vector<double> kTpotBounds = {0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05,
                                         0.075, 0.1,    0.25,  0.5,  1,    2.5};
constexpr const char* kStatusNames[] = {"none", "2xx", "3xx", "4xx", "5xx"};

int status_class(int status) {
  if (status >= 200 && status < 600) return status / 100 - 1;
  return 0;
}

std::string lv(std::string_view v) {
  std::string out = "\"";
  append_escaped_label(out, v);
  out += '"';
  return out;
}

}  // namespace

void LiveMetrics::Histogram::observe(double s) {
  const size_t i =
      static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), s) - bounds.begin());
  counts[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns.fetch_add(static_cast<uint64_t>(std::max(0.0, s) * 1e9), std::memory_order_relaxed);
  count.fetch_add(1, std::memory_order_relaxed);
}

void LiveMetrics::Histogram::render(std::string& out, const std::string& name,
                                    const std::string& labels) const {
  // A snapshot of the relaxed counters (each read once; _count is their sum).
  std::array<uint64_t, kMaxBuckets + 1> snapshot{};
  for (size_t i = 0; i <= bounds.size(); ++i)
    snapshot[i] = counts[i].load(std::memory_order_relaxed);
  append_prom_histogram(out, name, labels, bounds, std::span(snapshot.data(), bounds.size() + 1),
                        static_cast<double>(sum_ns.load(std::memory_order_relaxed)) / 1e9);
}

LiveMetrics::LiveMetrics(std::string provider, std::string scenario)
    : provider_(std::move(provider)),
      scenario_(std::move(scenario)),
      ttft_(kTtftBounds),
      tpot_(kTpotBounds) {
  for (int i = 0; i < kStatusClasses; ++i)
    duration_.push_back(std::make_unique<Histogram>(kDurationBounds));
}

void LiveMetrics::observe(const metrics::RequestRecord& r) {
  const int sc = status_class(r.status);
  requests_[sc].fetch_add(1, std::memory_order_relaxed);
  if (!r.ok()) errors_[static_cast<size_t>(r.error_class)].fetch_add(1, std::memory_order_relaxed);
  input_tokens_.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, r.input_tokens)),
                          std::memory_order_relaxed);
  output_tokens_.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, r.output_tokens)),
                           std::memory_order_relaxed);
  if (r.t_send_ns != metrics::kNoTime && r.t_end_ns != metrics::kNoTime)
    duration_[sc]->observe(static_cast<double>(r.t_end_ns - r.t_send_ns) / 1e9);
  if (auto t = r.ttft_ms()) ttft_.observe(*t / 1e3);
  if (auto t = r.tpot_ms()) tpot_.observe(*t / 1e3);
}

void LiveMetrics::set_gpu(const std::vector<GpuReading>& readings, TimePoint at) {
  std::lock_guard lock(gpu_mu_);
  gpu_energy_j_.resize(readings.size(), 0.0);
  if (gpu_.size() == readings.size() && at > gpu_at_) {
    const double dt_s = std::chrono::duration<double>(at - gpu_at_).count();
    for (size_t i = 0; i < readings.size(); ++i)
      if (std::isfinite(gpu_[i].power_w) && std::isfinite(readings[i].power_w))
        gpu_energy_j_[i] += (gpu_[i].power_w + readings[i].power_w) / 2 * dt_s;
  }
  gpu_ = readings;
  gpu_at_ = at;
}

std::string LiveMetrics::render() const {
  std::string out;
  out.reserve(16384);
  auto it = std::back_inserter(out);
  const std::string base = fmt::format("provider={},scenario={}", lv(provider_), lv(scenario_));
  out +=
      "# HELP servebench_request_duration_seconds Request duration, first byte sent to end.\n"
      "# TYPE servebench_request_duration_seconds histogram\n";
  for (int i = 0; i < kStatusClasses; ++i)
    if (duration_[i]->count.load(std::memory_order_relaxed) > 0)
      duration_[i]->render(out, "servebench_request_duration_seconds",
                           fmt::format("{},status_class=\"{}\"", base, kStatusNames[i]));
  out +=
      "# HELP api_request_duration_seconds Alias of servebench_request_duration_seconds "
      "(framework = provider).\n# TYPE api_request_duration_seconds histogram\n";
  for (int i = 0; i < kStatusClasses; ++i)
    if (duration_[i]->count.load(std::memory_order_relaxed) > 0)
      duration_[i]->render(out, "api_request_duration_seconds",
                           fmt::format("framework={},scenario={},status_class=\"{}\"",
                                       lv(provider_), lv(scenario_), kStatusNames[i]));
  out +=
      "# HELP servebench_ttft_seconds Time to first token.\n# TYPE servebench_ttft_seconds "
      "histogram\n";
  ttft_.render(out, "servebench_ttft_seconds", base);
  out +=
      "# HELP servebench_tpot_seconds Time per output token after the first.\n"
      "# TYPE servebench_tpot_seconds histogram\n";
  tpot_.render(out, "servebench_tpot_seconds", base);
  out +=
      "# HELP servebench_requests_total Finished requests.\n# TYPE servebench_requests_total "
      "counter\n";
  for (int i = 0; i < kStatusClasses; ++i)
    fmt::format_to(it, "servebench_requests_total{{{},status_class=\"{}\"}} {}\n", base,
                   kStatusNames[i], requests_[i].load(std::memory_order_relaxed));
  out +=
      "# HELP servebench_errors_total Failed requests by error class.\n"
      "# TYPE servebench_errors_total counter\n";
  for (size_t i = 0; i < errors_.size(); ++i)
    if (const uint64_t n = errors_[i].load(std::memory_order_relaxed); n > 0)
      fmt::format_to(it, "servebench_errors_total{{{},class=\"{}\"}} {}\n", base,
                     kErrorClassNames[i], n);
  out += "# TYPE servebench_input_tokens_total counter\n";
  fmt::format_to(it, "servebench_input_tokens_total{{{}}} {}\n", base,
                 input_tokens_.load(std::memory_order_relaxed));
  out += "# TYPE servebench_output_tokens_total counter\n";
  fmt::format_to(it, "servebench_output_tokens_total{{{}}} {}\n", base,
                 output_tokens_.load(std::memory_order_relaxed));
  out +=
      "# HELP servebench_in_flight_requests Requests sent and not yet finished.\n"
      "# TYPE servebench_in_flight_requests gauge\n";
  fmt::format_to(it, "servebench_in_flight_requests{{{}}} {}\n", base,
                 in_flight_.load(std::memory_order_relaxed));
  std::lock_guard lock(gpu_mu_);
  if (gpu_.empty()) return out;
  struct G {
    const char* name;
    const char* help;
    double GpuReading::*v;
  };
  static constexpr G kGauges[] = {
      {"gpu_memory_used_bytes", "GPU memory used.", &GpuReading::mem_used_bytes},
      {"gpu_memory_total_bytes", "GPU memory total.", &GpuReading::mem_total_bytes},
      {"gpu_utilization_percent", "GPU SM utilisation.", &GpuReading::sm_util_pct},
      {"gpu_memory_utilization_percent", "GPU memory-bandwidth utilisation.",
       &GpuReading::mem_util_pct},
      {"gpu_power_watts", "GPU power draw.", &GpuReading::power_w},
      {"gpu_temperature_celsius", "GPU temperature.", &GpuReading::temperature_c},
      {"gpu_sm_clock_mhz", "GPU SM clock.", &GpuReading::sm_clock_mhz},
  };
  for (const G& g : kGauges) {
    fmt::format_to(it, "# HELP {} {}\n# TYPE {} gauge\n", g.name, g.help, g.name);
    for (const GpuReading& r : gpu_)
      if (!std::isnan(r.*g.v))
        fmt::format_to(it, "{}{{device=\"{}\"}} {}\n", g.name, r.index, r.*g.v);
  }
  out +=
      "# HELP gpu_energy_joules_total GPU energy since the first sample (power samples, "
      "trapezoid).\n# TYPE gpu_energy_joules_total counter\n";
  for (size_t i = 0; i < gpu_.size(); ++i)
    fmt::format_to(it, "gpu_energy_joules_total{{device=\"{}\"}} {}\n", gpu_[i].index,
                   gpu_energy_j_[i]);
  return out;
}

}  // namespace sb::telemetry
