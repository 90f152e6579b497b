#include "metrics/distribution.h"

#include <algorithm>
#include <cmath>

#include "metrics/order_stats.h"

namespace sb::metrics {

namespace {

constexpr double kPercents[] = {50, 90, 95, 99, 99.9};

// Percentile p of n sorted values, given the value at a rank.
template <typename At>
double percentile_at(size_t n, double p, At&& at) {
  if (n == 1) return at(0);
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  if (lo + 1 >= n) return at(n - 1);
  const double frac = rank - static_cast<double>(lo);
  const double a = at(lo), b = at(lo + 1);
  return a + frac * (b - a);
}

// T = float: every step in double (or long double), so the result equals that of the same
// samples widened to double.
template <typename T>
Distribution distribution_impl(std::vector<T>& samples) {
  if (samples.empty()) return {};
  const size_t n = samples.size();
  // Two passes (mean, then squared deviations) in long double: stable for long runs.
  long double sum = 0;
  for (double x : samples) sum += x;
  const long double mean = sum / static_cast<long double>(n);
  long double sq = 0;
  for (double x : samples) sq += (x - mean) * (x - mean);
  // The order statistics the percentiles interpolate between, found by selection rather than
  // a full sort (linear; a 10 M-request run has ten such metrics): each nth_element leaves
  // the smaller values before its rank, so the next one searches only what is after it.
  // The values equal those of the sorted array, so every percentile is exact.
  const std::vector<size_t> ranks = order_ranks(n);
  std::vector<double> values;
  values.reserve(ranks.size());
  auto from = samples.begin();
  for (size_t rank : ranks) {
    const auto at = samples.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(from, at, samples.end());
    values.push_back(*at);
    from = at + 1;
  }
  return distribution_from(n, static_cast<double>(mean),
                           static_cast<double>(std::sqrt(sq / static_cast<long double>(n))),
                           values);
}

}  // namespace

std::vector<size_t> order_ranks(size_t n) {
  std::vector<size_t> ranks = {0, n - 1};
  for (double p : kPercents) {
    const auto lo = static_cast<size_t>(std::floor(p / 100.0 * static_cast<double>(n - 1)));
    ranks.push_back(lo);
    if (lo + 1 < n) ranks.push_back(lo + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

Distribution distribution_from(size_t n, double mean, double stddev,
                               std::span<const double> values_at_ranks) {
  const std::vector<size_t> ranks = order_ranks(n);
  const auto at = [&](size_t rank) {
    return values_at_ranks[static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), rank) -
                                               ranks.begin())];
  };
  Distribution d;
  d.count = static_cast<int64_t>(n);
  d.mean = mean;
  d.stddev = stddev;
  d.min = at(0);
  d.max = at(n - 1);
  d.p50 = percentile_at(n, 50, at);
  d.p90 = percentile_at(n, 90, at);
  d.p95 = percentile_at(n, 95, at);
  d.p99 = percentile_at(n, 99, at);
  d.p999 = percentile_at(n, 99.9, at);
  return d;
}

double percentile_sorted(std::span<const double> sorted, double p) {
  return percentile_at(sorted.size(), p, [&](size_t rank) { return sorted[rank]; });
}

Distribution distribution_of(std::vector<double> samples) {
  return distribution_impl(samples);
}

Distribution distribution_of_floats(std::vector<float> samples) {
  return distribution_impl(samples);
}

}  // namespace sb::metrics
