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
  const size_t n = samples.size();
  d.count = static_cast<int64_t>(n);
  // Two passes (mean, then squared deviations) in long double: stable for long runs.
  long double sum = 0;
  for (double x : samples) sum += x;
  const long double mean = sum / static_cast<long double>(n);
  long double sq = 0;
  for (double x : samples) sq += (x - mean) * (x - mean);
  d.mean = static_cast<double>(mean);
  d.stddev = static_cast<double>(std::sqrt(sq / static_cast<long double>(n)));
  // The order statistics the percentiles interpolate between, found by selection rather than
  // a full sort (linear; a 10 M-request run has ten such metrics): each nth_element leaves
  // the smaller values before its rank, so the next one searches only what is after it.
  // The values equal those of the sorted array, so every percentile is exact.
  static constexpr double kPercents[] = {50, 90, 95, 99, 99.9};
  std::vector<size_t> ranks = {0, n - 1};
  for (double p : kPercents) {
    const auto lo = static_cast<size_t>(std::floor(p / 100.0 * static_cast<double>(n - 1)));
    ranks.push_back(lo);
    if (lo + 1 < n) ranks.push_back(lo + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  auto from = samples.begin();
  for (size_t rank : ranks) {
    const auto at = samples.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(from, at, samples.end());
    from = at + 1;
  }
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
