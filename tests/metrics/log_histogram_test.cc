#include "metrics/log_histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::metrics {
namespace {

constexpr double kPercentiles[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

// Log-uniform nanosecond values between 1 µs and 1 hour: the range docs/metrics.md names.
std::vector<int64_t> log_uniform(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(std::log(1e3), std::log(3.6e12));
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(std::exp(u(rng)));
  return v;
}

void expect_within_bound(const LogHistogram& h, std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  std::vector<double> exact(values.begin(), values.end());
  for (double p : kPercentiles) {
    const double want = percentile_sorted(exact, p);
    const double got = h.percentile(p);
    EXPECT_LE(std::abs(got - want), want * LogHistogram::kMaxRelativeError * (1 + 1e-9))
        << "p" << p << " want " << want << " got " << got;
    EXPECT_LE(std::abs(got - want), want * 1e-3);  // the bound of docs/metrics.md
  }
}

TEST(LogHistogram, ErrorBoundOnRandomData) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto values = log_uniform(20'000, seed);
    LogHistogram h;
    for (int64_t v : values) h.record(v);
    EXPECT_EQ(h.count(), values.size());
    EXPECT_EQ(h.clamped(), 0u);
    expect_within_bound(h, values);
  }
}

TEST(LogHistogram, ErrorBoundOnNarrowItlLikeData) {
  // ITL-like: ~20 ms +- a few ms, in ns; many samples share buckets.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> nd(20e6, 3e6);
  std::vector<int64_t> values(50'000);
  for (auto& v : values) v = std::max<int64_t>(1000, static_cast<int64_t>(nd(rng)));
  LogHistogram h;
  for (int64_t v : values) h.record(v);
  expect_within_bound(h, values);
}

TEST(LogHistogram, SmallValuesAreExact) {
  LogHistogram h;
  for (int64_t v = 0; v < 2048; ++v) h.record(v);
  EXPECT_DOUBLE_EQ(h.percentile(0), 0);
  EXPECT_DOUBLE_EQ(h.percentile(50), 1023.5);  // rank 1023.5 between 1023 and 1024
  EXPECT_DOUBLE_EQ(h.percentile(100), 2047);
}

TEST(LogHistogram, ExactCountMinMaxMeanStddev) {
  LogHistogram h;
  for (int64_t v : {1000, 2000, 3000, 4000}) h.record(v);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 1000);
  EXPECT_EQ(h.max(), 4000);
  EXPECT_DOUBLE_EQ(h.mean(), 2500);
  EXPECT_NEAR(h.stddev(), 1000 * std::sqrt(1.25), 1e-6);  // population, as numpy
  const Distribution d = h.distribution(1e-3);            // ns -> µs
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.max, 4);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_NEAR(d.p50, 2.5, 2.5 * LogHistogram::kMaxRelativeError);
}

TEST(LogHistogram, Empty) {
  LogHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(99), 0);
  EXPECT_EQ(h.distribution().count, 0);
}

TEST(LogHistogram, ClampsOutOfRange) {
  LogHistogram h(1'000'000);
  h.record(-5);
  h.record(5'000'000);
  h.record(500);
  EXPECT_EQ(h.clamped(), 2u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 1'000'000);
}

TEST(LogHistogram, MergeEqualsRecordingEverything) {
  const auto values = log_uniform(10'000, 11);
  LogHistogram all, a, b;
  for (size_t i = 0; i < values.size(); ++i) {
    all.record(values[i]);
    (i % 3 ? a : b).record(values[i]);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_NEAR(a.mean(), all.mean(), all.mean() * 1e-12);
  for (double p : kPercentiles) EXPECT_DOUBLE_EQ(a.percentile(p), all.percentile(p));
  LogHistogram other_range(1000);
  EXPECT_THROW(a.merge(other_range), Error);
}

TEST(LogHistogram, MergeIntoEmpty) {
  LogHistogram a, b;
  b.record(5000);
  b.record(7000);
  a.merge(b);
  EXPECT_EQ(a.min(), 5000);
  EXPECT_EQ(a.max(), 7000);
}

TEST(LogHistogram, SerializeRoundTrip) {
  const auto values = log_uniform(5'000, 5);
  LogHistogram h;
  for (int64_t v : values) h.record(v);
  const LogHistogram back = LogHistogram::deserialize(h.serialize());
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.min(), h.min());
  EXPECT_EQ(back.max(), h.max());
  EXPECT_NEAR(back.mean(), h.mean(), h.mean() * 1e-12);
  for (double p : kPercentiles) EXPECT_DOUBLE_EQ(back.percentile(p), h.percentile(p));
  EXPECT_THROW(LogHistogram::deserialize("nope"), Error);
  EXPECT_THROW(LogHistogram::deserialize("sbhist1 100 2 0 1 5 6 26 1:1"), Error);  // sum != 2
  EXPECT_THROW(LogHistogram::deserialize("sbhist1 100 1 0 1 1 1 1 99999:1"), Error);
}

TEST(LogHistogram, ResetClears) {
  LogHistogram h;
  h.record(12345);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  h.record(7);
  EXPECT_EQ(h.min(), 7);
}

}  // namespace
}  // namespace sb::metrics
