#include "metrics/distribution.h"

#include <algorithm>
#include <cmath>

namespace sb::metrics {

double percentile_sorted(std::span<const double> sorted, double p) {
  const size_t n = sorted.size();
  if (n == 1) return sorted[0];
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  if (lo + 1 >= n) return sorted[n - 1];
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

Distribution distribution_of(std::vector<double> samples) {
  Distribution d;
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(samples.size());
  d.count = static_cast<int64_t>(samples.size());
  // Two passes (mean, then squared deviations) in long double: stable for long runs.
  long double sum = 0;
  for (double x : samples) sum += x;
  const long double mean = sum / n;
  long double sq = 0;
  for (double x : samples) sq += (x - mean) * (x - mean);
  d.mean = static_cast<double>(mean);
  d.stddev = static_cast<double>(std::sqrt(sq / n));
  d.min = samples.front();
  d.max = samples.back();
  d.p50 = percentile_sorted(samples, 50);
  d.p90 = percentile_sorted(samples, 90);
  d.p95 = percentile_sorted(samples, 95);
  d.p99 = percentile_sorted(samples, 99);
  d.p999 = percentile_sorted(samples, 99.9);
  return d;
}

}  // namespace sb::metrics
