#include "metrics/distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace sb::metrics {
namespace {

// Expected values are numpy's: np.percentile(x, p) (method="linear"), np.std(x) (ddof=0).
TEST(Distribution, FourValues) {
  const Distribution d = distribution_of({4, 1, 3, 2});
  EXPECT_EQ(d.count, 4);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  // population: sqrt((1.5^2 + 0.5^2 + 0.5^2 + 1.5^2) / 4) = sqrt(5/4)
  EXPECT_DOUBLE_EQ(d.stddev, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.max, 4);
  EXPECT_DOUBLE_EQ(d.p50, 2.5);     // rank 0.5*3 = 1.5   -> 2 + 0.5*(3-2)
  EXPECT_DOUBLE_EQ(d.p90, 3.7);     // rank 0.9*3 = 2.7   -> 3 + 0.7*(4-3)
  EXPECT_DOUBLE_EQ(d.p95, 3.85);    // rank 2.85
  EXPECT_DOUBLE_EQ(d.p99, 3.97);    // rank 2.97
  EXPECT_DOUBLE_EQ(d.p999, 3.997);  // rank 2.997
}

TEST(Distribution, NumpyDocExample) {
  const std::vector<double> x = {15, 20, 35, 40, 50};
  EXPECT_DOUBLE_EQ(percentile_sorted(x, 40), 29);  // rank 1.6 -> 20 + 0.6*15
  EXPECT_DOUBLE_EQ(percentile_sorted(x, 50), 35);  // rank 2
  EXPECT_DOUBLE_EQ(percentile_sorted(x, 90), 46);  // rank 3.6 -> 40 + 0.6*10
  EXPECT_DOUBLE_EQ(percentile_sorted(x, 0), 15);
  EXPECT_DOUBLE_EQ(percentile_sorted(x, 100), 50);
}

TEST(Distribution, UnsortedThree) {
  const Distribution d = distribution_of({10, 1, 7});
  EXPECT_DOUBLE_EQ(d.p50, 7);
  EXPECT_DOUBLE_EQ(d.mean, 6);
  // deviations -5, 1, 4 -> (25 + 1 + 16) / 3 = 14
  EXPECT_DOUBLE_EQ(d.stddev, std::sqrt(14.0));
  EXPECT_DOUBLE_EQ(d.p90, 9.4);  // rank 1.8 -> 7 + 0.8*3
}

TEST(Distribution, SingleSample) {
  const Distribution d = distribution_of({5});
  EXPECT_EQ(d.count, 1);
  EXPECT_DOUBLE_EQ(d.stddev, 0);
  for (double v : {d.mean, d.min, d.p50, d.p90, d.p95, d.p99, d.p999, d.max})
    EXPECT_DOUBLE_EQ(v, 5);
}

TEST(Distribution, Empty) {
  const Distribution d = distribution_of({});
  EXPECT_EQ(d.count, 0);
  EXPECT_TRUE(d.empty());
}

TEST(Distribution, HundredValuesP99) {
  std::vector<double> x;
  for (int i = 1; i <= 100; ++i) x.push_back(i);
  const Distribution d = distribution_of(x);
  EXPECT_DOUBLE_EQ(d.p50, 50.5);   // rank 49.5
  EXPECT_DOUBLE_EQ(d.p99, 99.01);  // rank 98.01 -> 99 + 0.01
  EXPECT_NEAR(d.p999, 99.901, 1e-9);
}

// Selection (nth_element) gives exactly the sorted array's order statistics: the same bits as
// percentile_sorted over a full sort, at every size (odd, even, tiny) and with ties.
TEST(Distribution, SelectionEqualsFullSort) {
  uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 40) / 1e3;
  };
  for (size_t n : {1u, 2u, 3u, 7u, 100u, 101u, 1000u, 1001u, 54321u}) {
    std::vector<double> x(n);
    for (auto& v : x) v = n % 2 ? next() : std::floor(next() / 1e5);  // even sizes: many ties
    std::vector<double> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    const Distribution d = distribution_of(x);
    EXPECT_EQ(d.min, sorted.front()) << n;
    EXPECT_EQ(d.max, sorted.back()) << n;
    EXPECT_EQ(d.p50, percentile_sorted(sorted, 50)) << n;
    EXPECT_EQ(d.p90, percentile_sorted(sorted, 90)) << n;
    EXPECT_EQ(d.p95, percentile_sorted(sorted, 95)) << n;
    EXPECT_EQ(d.p99, percentile_sorted(sorted, 99)) << n;
    EXPECT_EQ(d.p999, percentile_sorted(sorted, 99.9)) << n;
  }
}

// Inter-token gaps are kept as floats: their statistics equal those of the same values
// widened to double, field for field.
TEST(Distribution, FloatSamplesEqualTheirDoubles) {
  uint64_t state = 777;
  for (size_t n : {1u, 2u, 5u, 1000u, 4097u}) {
    std::vector<float> f(n);
    for (auto& v : f) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<float>(state >> 44) / 97.0f;
    }
    const Distribution a = distribution_of_floats(f);
    const Distribution b = distribution_of(std::vector<double>(f.begin(), f.end()));
    EXPECT_EQ(a.count, b.count) << n;
    EXPECT_EQ(a.mean, b.mean) << n;
    EXPECT_EQ(a.stddev, b.stddev) << n;
    EXPECT_EQ(a.min, b.min) << n;
    EXPECT_EQ(a.p50, b.p50) << n;
    EXPECT_EQ(a.p90, b.p90) << n;
    EXPECT_EQ(a.p95, b.p95) << n;
    EXPECT_EQ(a.p99, b.p99) << n;
    EXPECT_EQ(a.p999, b.p999) << n;
    EXPECT_EQ(a.max, b.max) << n;
  }
}

}  // namespace
}  // namespace sb::metrics
