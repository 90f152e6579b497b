#pragma once
// The benchmark's own metrics while it runs, rendered as Prometheus text for
// --metrics-port: servebench_request_duration_seconds (labels provider, scenario,
// status_class) and its alias api_request_duration_seconds{framework=...} (the reference
// study's name), TTFT and TPOT histograms, request / token counters, error counters by
// class, the in-flight gauge and GPU gauges (gpu_memory_used_bytes{device=...} ...), and
// gpu_energy_joules_total{device=...}: the GPU samples' power integrated (trapezoid) from the
// first sample on.
// observe() runs on the engine's worker threads for every finished request: relaxed
// atomics only, no lock, no allocation.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error_class.h"
#include "common/prom_page.h"
#include "metrics/request_record.h"
#include "telemetry/gpu_source.h"

namespace sb::telemetry {

class LiveMetrics {
 public:
  LiveMetrics(std::string provider, std::string scenario);
  void observe(const metrics::RequestRecord& r);
  void set_in_flight(int64_t n) { in_flight_.store(n, std::memory_order_relaxed); }
  void set_gpu(const std::vector<GpuReading>& readings) { set_gpu(readings, Clock::now()); }
  // The readings taken at `at` (tests give the instants).
  void set_gpu(const std::vector<GpuReading>& readings, TimePoint at);
  std::string render() const;

  struct Histogram {
    static constexpr int kMaxBuckets = 20;
    std::vector<double> bounds;  // upper bounds, seconds; +Inf implicit
    std::array<std::atomic<uint64_t>, kMaxBuckets + 1> counts{};  // non-cumulative
    std::atomic<uint64_t> sum_ns{0}, count{0};
    std::vector<std::string> le_texts;  // the bounds as the page writes them
    explicit Histogram(std::vector<double> b);
    void observe(double seconds);
    // The histogram's samples (cumulative buckets, _sum, _count) with these labels.
    void add_to(PromPageFill& fill, std::string_view name, const Labels& labels) const;
  };

 private:
  static constexpr int kStatusClasses = 5;  // none(no response), 2xx, 3xx, 4xx, 5xx
  std::string provider_, scenario_;
  std::vector<std::unique_ptr<Histogram>> duration_;  // per status class
  Histogram ttft_, tpot_;
  std::array<std::atomic<uint64_t>, kStatusClasses> requests_{};
  std::array<std::atomic<uint64_t>, kErrorClassNames.size()> errors_{};
  std::atomic<uint64_t> input_tokens_{0}, output_tokens_{0};
  std::atomic<int64_t> in_flight_{0};
  mutable std::mutex gpu_mu_;
  std::vector<GpuReading> gpu_;
  TimePoint gpu_at_{};
  std::vector<double> gpu_energy_j_;  // per reading position, since the first sample
};

}  // namespace sb::telemetry
