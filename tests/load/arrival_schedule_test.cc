#include "load/arrival_schedule.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::load {
namespace {

using std::chrono::nanoseconds;

struct GapStats {
  double mean_s = 0;
  double var_s2 = 0;
  double below_mean = 0;  // fraction of gaps shorter than 1 / rate
};

GapStats gap_stats(const std::vector<nanoseconds>& offsets, double rate_per_s) {
  const size_t n = offsets.size() - 1;
  double sum = 0;
  double below = 0;
  for (size_t i = 1; i < offsets.size(); ++i) {
    const double gap = static_cast<double>((offsets[i] - offsets[i - 1]).count()) / 1e9;
    sum += gap;
    if (gap < 1.0 / rate_per_s) ++below;
  }
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (size_t i = 1; i < offsets.size(); ++i) {
    const double gap = static_cast<double>((offsets[i] - offsets[i - 1]).count()) / 1e9;
    sq += (gap - mean) * (gap - mean);
  }
  return {mean, sq / static_cast<double>(n - 1), below / static_cast<double>(n)};
}

constexpr size_t kN = 100'001;  // 100k inter-arrival gaps

TEST(Arrival, ParseAndName) {
  for (Arrival a : {Arrival::constant, Arrival::poisson, Arrival::gamma}) {
    EXPECT_EQ(arrival_from_string(to_string(a)), a);
    EXPECT_EQ(parse_arrival(to_string(a)), a);
  }
  EXPECT_EQ(arrival_from_string("Poisson"), std::nullopt);
  try {
    parse_arrival("uniform");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_STREQ(e.what(), "invalid arrival \"uniform\": expected constant, poisson or gamma");
  }
}

TEST(ArrivalSchedule, ConstantIsExactAndDoesNotDrift) {
  for (double rate : {3.0, 7.0, 1000.0, 0.25, 1.5}) {
    SCOPED_TRACE(rate);
    ArrivalSchedule s({.rate_per_s = rate, .arrival = Arrival::constant});
    nanoseconds last{};
    for (uint64_t i = 0; i < 1'000'000; ++i) {
      last = s.next();
      if (i < 10) {
        EXPECT_EQ(last.count(), std::llround(static_cast<double>(i) * 1e9 / rate));
      }
    }
    const nanoseconds millionth = s.next();  // request index 1,000,000
    EXPECT_EQ(millionth.count(), std::llround(1e6 * 1e9 / rate));
    EXPECT_GT(millionth, last);
  }
  // Spelled out: 1e6 / 3 s and 1e6 / 7 s to the nanosecond.
  EXPECT_EQ(make_schedule({.rate_per_s = 3.0}, 1'000'001).back().count(), 333'333'333'333'333);
  EXPECT_EQ(make_schedule({.rate_per_s = 7.0}, 1'000'001).back().count(), 142'857'142'857'143);
}

TEST(ArrivalSchedule, FirstAtZeroAndNonDecreasing) {
  for (Arrival a : {Arrival::constant, Arrival::poisson, Arrival::gamma}) {
    SCOPED_TRACE(to_string(a));
    const auto offsets = make_schedule({10.0, a, 0.3, 42}, 10'000);
    ASSERT_EQ(offsets.size(), 10'000u);
    EXPECT_EQ(offsets[0].count(), 0);
    for (size_t i = 1; i < offsets.size(); ++i) ASSERT_GE(offsets[i], offsets[i - 1]);
  }
  EXPECT_TRUE(make_schedule({10.0, Arrival::poisson, 1.0, 1}, 0).empty());
}

TEST(ArrivalSchedule, PoissonMeanAndVariance) {
  const double rate = 20.0;
  const GapStats st = gap_stats(make_schedule({rate, Arrival::poisson, 1.0, 12345}, kN), rate);
  EXPECT_NEAR(st.mean_s, 1 / rate, 0.02 / rate);
  EXPECT_NEAR(st.var_s2, 1 / (rate * rate), 0.05 / (rate * rate));
  EXPECT_NEAR(st.below_mean, 1 - std::exp(-1.0), 0.01);  // exponential CDF at the mean
}

TEST(ArrivalSchedule, GammaMeanAndVariance) {
  const double rate = 50.0;
  for (double k : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    SCOPED_TRACE(k);
    const GapStats st = gap_stats(make_schedule({rate, Arrival::gamma, k, 777}, kN), rate);
    EXPECT_NEAR(st.mean_s, 1 / rate, 0.02 / rate);
    const double var = 1 / (k * rate * rate);
    EXPECT_NEAR(st.var_s2, var, 0.05 * var);
  }
  // Shape 1 is the exponential distribution.
  const GapStats st = gap_stats(make_schedule({rate, Arrival::gamma, 1.0, 9}, kN), rate);
  EXPECT_NEAR(st.below_mean, 1 - std::exp(-1.0), 0.01);
}

TEST(ArrivalSchedule, GammaWithInfiniteBurstinessIsConstant) {
  const auto inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(make_schedule({4.0, Arrival::gamma, inf, 5}, 1000),
            make_schedule({4.0, Arrival::constant, 1.0, 0}, 1000));
}

TEST(ArrivalSchedule, DeterministicPerSeedAndSeedsDiffer) {
  for (Arrival a : {Arrival::poisson, Arrival::gamma}) {
    SCOPED_TRACE(to_string(a));
    const auto one = make_schedule({100.0, a, 0.5, 1}, 1000);
    EXPECT_EQ(one, make_schedule({100.0, a, 0.5, 1}, 1000));
    const auto two = make_schedule({100.0, a, 0.5, 2}, 1000);
    size_t same = 0;
    for (size_t i = 1; i < one.size(); ++i) same += one[i] == two[i];
    EXPECT_EQ(same, 0u);
    // next() and make_schedule agree.
    ArrivalSchedule s({100.0, a, 0.5, 1});
    for (const nanoseconds& t : one) ASSERT_EQ(s.next(), t);
  }
}

TEST(ArrivalSchedule, RejectsBadConfig) {
  const auto inf = std::numeric_limits<double>::infinity();
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  for (double rate : {0.0, -1.0, inf, nan, 1e-7}) {
    SCOPED_TRACE(rate);
    try {
      ArrivalSchedule s({rate, Arrival::poisson, 1.0, 0});
      FAIL() << "no throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("invalid request rate"), std::string::npos);
    }
  }
  for (double k : {0.0, -1.0, nan}) {
    SCOPED_TRACE(k);
    EXPECT_THROW(ArrivalSchedule({1.0, Arrival::gamma, k, 0}), Error);
  }
  EXPECT_NO_THROW(ArrivalSchedule({1.0, Arrival::poisson, 0.0, 0}));  // burstiness unused
}

}  // namespace
}  // namespace sb::load
