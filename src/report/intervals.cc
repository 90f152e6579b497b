#include "report/intervals.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace sb::report {
namespace {

// F(k) = P(B <= k), B ~ Binomial(n, p), for k = 0..n-1 (index k). The terms are summed only
// within 12 standard deviations of the mean (at least 40 ranks each side): below, F is 0 to
// double precision (set to 0), above it reaches 1 (set to 1), so a run of 10 M samples costs
// a few thousand lgamma calls, not 30 million.
std::vector<double> binomial_cdf(size_t n, double p) {
  std::vector<double> cdf(n, 0.0);
  const double lp = std::log(p), lq = std::log1p(-p);
  const double nd = static_cast<double>(n);
  const double ln_fact_n = std::lgamma(nd + 1);
  const double reach = 12 * std::sqrt(nd * p * (1 - p)) + 40;
  const auto from = static_cast<size_t>(std::max(0.0, std::floor(nd * p - reach)));
  const auto to = static_cast<size_t>(std::min(nd, std::ceil(nd * p + reach)));
  double acc = 0;
  for (size_t k = from; k < n; ++k) {
    if (k >= to) {
      cdf[k] = 1.0;
      continue;
    }
    const double kd = static_cast<double>(k);
    acc += std::exp(ln_fact_n - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) + kd * lp +
                    (nd - kd) * lq);
    cdf[k] = std::min(acc, 1.0);
  }
  return cdf;
}

Interval quantiles_of(std::vector<double>& stats, double confidence) {
  std::sort(stats.begin(), stats.end());
  const double a = (1 - confidence) / 2;
  const auto at = [&](double q) {
    const double r = q * static_cast<double>(stats.size() - 1);
    const size_t i = static_cast<size_t>(std::floor(r));
    const size_t j = std::min(i + 1, stats.size() - 1);
    return stats[i] + (stats[j] - stats[i]) * (r - static_cast<double>(i));
  };
  return {at(a), at(1 - a), false, false};
}

}  // namespace

Interval percentile_interval(std::span<const double> sorted, double p, double confidence) {
  Interval out{sorted.front(), sorted.back(), true, true};
  const size_t n = sorted.size();
  const double q = p / 100;
  if (!(q > 0) || !(q < 1)) return out;
  const double a = (1 - confidence) / 2;
  const std::vector<double> F = binomial_cdf(n, q);
  // Lower: the largest rank l (1-based) with F(l-1) <= a.
  for (size_t l = n; l >= 1; --l)
    if (F[l - 1] <= a) {
      out.lo = sorted[l - 1];
      out.lo_open = false;
      break;
    }
  // Upper: the smallest rank u with F(u-1) >= 1 - a.
  for (size_t u = 1; u <= n; ++u)
    if (F[u - 1] >= 1 - a) {
      out.hi = sorted[u - 1];
      out.hi_open = false;
      break;
    }
  return out;
}

Interval mean_interval(const std::vector<double>& samples, double confidence, int resamples,
                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, samples.size() - 1);
  std::vector<double> means;
  means.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double sum = 0;
    for (size_t i = 0; i < samples.size(); ++i) sum += samples[pick(rng)];
    means.push_back(sum / static_cast<double>(samples.size()));
  }
  return quantiles_of(means, confidence);
}

Interval rate_interval(const std::vector<double>& gaps_s, double confidence, int resamples,
                       uint64_t seed, size_t exact_up_to) {
  std::mt19937_64 rng(seed);
  const size_t n = gaps_s.size();
  const double nd = static_cast<double>(n);
  std::vector<double> rates;
  rates.reserve(static_cast<size_t>(resamples));
  if (n > exact_up_to) {
    double mean = 0, m2 = 0;  // Welford: the gaps' mean and population variance
    for (size_t i = 0; i < n; ++i) {
      const double d = gaps_s[i] - mean;
      mean += d / static_cast<double>(i + 1);
      m2 += d * (gaps_s[i] - mean);
    }
    std::normal_distribution<double> sum(nd * mean, std::sqrt(nd * (m2 / nd)));
    for (int r = 0; r < resamples; ++r)
      if (const double s = sum(rng); s > 0) rates.push_back(nd / s);
  } else {
    std::uniform_int_distribution<size_t> pick(0, n - 1);
    for (int r = 0; r < resamples; ++r) {
      double sum = 0;
      for (size_t i = 0; i < n; ++i) sum += gaps_s[pick(rng)];
      if (sum > 0) rates.push_back(nd / sum);
    }
  }
  if (rates.empty()) return {0, 0, true, true};
  return quantiles_of(rates, confidence);
}

}  // namespace sb::report
