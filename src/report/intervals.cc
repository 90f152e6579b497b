#include "report/intervals.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace sb::report {
namespace {

// F(k) = P(B <= k), B ~ Binomial(n, p), for k = 0..n-1 (index k).
std::vector<double> binomial_cdf(size_t n, double p) {
  std::vector<double> cdf(n);
  const double lp = std::log(p), lq = std::log1p(-p);
  const double ln_fact_n = std::lgamma(static_cast<double>(n) + 1);
  double acc = 0;
  for (size_t k = 0; k < n; ++k) {
    const double kd = static_cast<double>(k), nd = static_cast<double>(n);
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
                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, gaps_s.size() - 1);
  std::vector<double> rates;
  rates.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double sum = 0;
    for (size_t i = 0; i < gaps_s.size(); ++i) sum += gaps_s[pick(rng)];
    if (sum > 0) rates.push_back(static_cast<double>(gaps_s.size()) / sum);
  }
  if (rates.empty()) return {0, 0, true, true};
  return quantiles_of(rates, confidence);
}

}  // namespace sb::report
