#include "telemetry/live_metrics.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

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

}  // namespace

void LiveMetrics::Histogram::observe(double s) {
  const size_t i =
      static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), s) - bounds.begin());
  counts[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns.fetch_add(static_cast<uint64_t>(std::max(0.0, s) * 1e9), std::memory_order_relaxed);
  count.fetch_add(1, std::memory_order_relaxed);
}

LiveMetrics::Histogram::Histogram(std::vector<double> b) : bounds(std::move(b)) {
  for (double bound : bounds) le_texts.push_back(fmt::format("{}", bound));
}

void LiveMetrics::Histogram::add_to(PromPageFill& fill, std::string_view name,
                                    const Labels& labels) const {
  // A snapshot of the relaxed counters (each read once; _count is their sum).
  std::array<uint64_t, kMaxBuckets + 1> snapshot{};
  for (size_t i = 0; i <= bounds.size(); ++i)
    snapshot[i] = counts[i].load(std::memory_order_relaxed);
  fill.histogram(name, labels, le_texts, std::span(snapshot.data(), bounds.size() + 1),
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
  PromPage page;
  {
    PromPageFill fill(page);
    const Labels base = {{"provider", provider_}, {"scenario", scenario_}};
    auto with = [](Labels labels, std::string name, std::string value) {
      labels.emplace_back(std::move(name), std::move(value));
      return labels;
    };
    fill.family("servebench_request_duration_seconds", PromType::histogram,
                "Request duration, first byte sent to end.");
    for (int i = 0; i < kStatusClasses; ++i)
      if (duration_[i]->count.load(std::memory_order_relaxed) > 0)
        duration_[i]->add_to(fill, "servebench_request_duration_seconds",
                             with(base, "status_class", kStatusNames[i]));
    fill.family("api_request_duration_seconds", PromType::histogram,
                "Alias of servebench_request_duration_seconds (framework = provider).");
    for (int i = 0; i < kStatusClasses; ++i)
      if (duration_[i]->count.load(std::memory_order_relaxed) > 0)
        duration_[i]->add_to(
            fill, "api_request_duration_seconds",
            {{"framework", provider_}, {"scenario", scenario_}, {"status_class", kStatusNames[i]}});
    fill.family("servebench_ttft_seconds", PromType::histogram, "Time to first token.");
    ttft_.add_to(fill, "servebench_ttft_seconds", base);
    fill.family("servebench_tpot_seconds", PromType::histogram,
                "Time per output token after the first.");
    tpot_.add_to(fill, "servebench_tpot_seconds", base);
    fill.family("servebench_requests_total", PromType::counter, "Finished requests.");
    for (int i = 0; i < kStatusClasses; ++i)
      fill.sample("servebench_requests_total", with(base, "status_class", kStatusNames[i]),
                  static_cast<double>(requests_[i].load(std::memory_order_relaxed)));
    fill.family("servebench_errors_total", PromType::counter, "Failed requests by error class.");
    for (size_t i = 0; i < errors_.size(); ++i)
      if (const uint64_t n = errors_[i].load(std::memory_order_relaxed); n > 0)
        fill.sample("servebench_errors_total",
                    with(base, "class", std::string(kErrorClassNames[i])), static_cast<double>(n));
    fill.family("servebench_input_tokens_total", PromType::counter);
    fill.sample("servebench_input_tokens_total", base,
                static_cast<double>(input_tokens_.load(std::memory_order_relaxed)));
    fill.family("servebench_output_tokens_total", PromType::counter);
    fill.sample("servebench_output_tokens_total", base,
                static_cast<double>(output_tokens_.load(std::memory_order_relaxed)));
    fill.family("servebench_in_flight_requests", PromType::gauge,
                "Requests sent and not yet finished.");
    fill.sample("servebench_in_flight_requests", base,
                static_cast<double>(in_flight_.load(std::memory_order_relaxed)));
    std::lock_guard lock(gpu_mu_);
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
      fill.family(g.name, PromType::gauge, g.help);
      for (const GpuReading& r : gpu_)
        if (!std::isnan(r.*g.v)) fill.sample(g.name, {{"device", std::to_string(r.index)}}, r.*g.v);
    }
    fill.family("gpu_energy_joules_total", PromType::counter,
                "GPU energy since the first sample (power samples, trapezoid).");
    for (size_t i = 0; i < gpu_.size(); ++i)
      fill.sample("gpu_energy_joules_total", {{"device", std::to_string(gpu_[i].index)}},
                  gpu_energy_j_[i]);
  }
  return prom_text_of(page);
}

}  // namespace sb::telemetry
