#include "calibrate/level_metrics.h"

#include "metrics/run_summary.h"

namespace sb::calibrate {
namespace {

std::optional<double> scaled(const std::optional<double>& v, double factor) {
  if (!v) return std::nullopt;
  return *v * factor;
}

std::optional<double> of(const metrics::Distribution& d, double metrics::Distribution::*field) {
  if (d.empty()) return std::nullopt;
  return d.*field;
}

}  // namespace

LevelMetrics metrics_of_summary(const results::SummaryView& s, double time_scale) {
  const double t = 1.0 / time_scale;
  const auto& m = s.metrics;
  return {scaled(m.ttft_ms.p50, t), scaled(m.ttft_ms.p90, t),
          scaled(m.ttft_ms.p99, t), scaled(m.tpot_ms.p50, t),
          scaled(m.tpot_ms.p90, t), scaled(m.tpot_ms.p99, t),
          scaled(m.e2e_ms.p50, t),  scaled(m.e2e_ms.p90, t),
          scaled(m.e2e_ms.p99, t),  scaled(s.throughput.output_tokens_per_s, time_scale)};
}

LevelMetrics metrics_of_records(const std::vector<metrics::RequestRecord>& records) {
  metrics::RunInfo info;
  info.bucket_interval_ms = 0;  // no time series: only the distributions are compared
  const metrics::RunSummary s = metrics::summarize_run(records, info);
  using D = metrics::Distribution;
  const auto& m = s.metrics;
  return {of(m.ttft_ms, &D::p50),          of(m.ttft_ms, &D::p90), of(m.ttft_ms, &D::p99),
          of(m.tpot_ms, &D::p50),          of(m.tpot_ms, &D::p90), of(m.tpot_ms, &D::p99),
          of(m.e2e_ms, &D::p50),           of(m.e2e_ms, &D::p90),  of(m.e2e_ms, &D::p99),
          s.throughput.output_tokens_per_s};
}

}  // namespace sb::calibrate
