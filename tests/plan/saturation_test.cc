// The saturation search and the rate bisection against fake measurements.
#include <cmath>

#include <gtest/gtest.h>

#include "plan/saturation.h"

namespace sb::plan {
namespace {

// A server that batches up to `cap` requests: throughput grows linearly to the cap, then is
// flat while latency grows with the queue (Little's law).
MeasureFn batching_server(double cap, double per_request_s, std::vector<double>* seen) {
  return [=](double level) -> std::optional<LevelMeasure> {
    if (seen) seen->push_back(level);
    LevelMeasure m;
    m.level = level;
    m.qps = std::min(level, cap) / per_request_s;
    m.latency_ms = 1000 * level / m.qps;
    return m;
  };
}

TEST(Saturation, FindsTheKneeOfABatchingServer) {
  std::vector<double> seen;
  const auto r = search_saturation(1, SaturationOptions{}, batching_server(32, 0.5, &seen));
  EXPECT_EQ(seen, (std::vector<double>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(r.stop_reason, "saturated");
  ASSERT_TRUE(r.knee);
  EXPECT_EQ(*r.knee, 32);
  EXPECT_DOUBLE_EQ(r.peak_qps, 64);
  EXPECT_EQ(r.peak_level, 32);  // 64 gives the same QPS; the first level reaching it
  ASSERT_TRUE(r.max_stable);
  EXPECT_EQ(*r.max_stable, 64);  // no SLO given: every level is stable
}

TEST(Saturation, FlatThroughputWithoutLatencyClimbIsNotAKnee) {
  // Throughput flat 4 -> 8 but latency flat too (e.g. the client was the bottleneck).
  auto m = [](double level) -> std::optional<LevelMeasure> {
    LevelMeasure x;
    x.level = level;
    x.qps = level <= 4 ? level : (level == 8 ? 4.1 : level);
    x.latency_ms = 100;
    return x;
  };
  SaturationOptions o;
  o.levels = {1, 2, 4, 8, 16};
  const auto r = search_saturation(1, o, m);
  EXPECT_EQ(r.stop_reason, "max_level");
  EXPECT_FALSE(r.knee);
  EXPECT_EQ(r.points.size(), 5u);
}

TEST(Saturation, StopsWhenAnSloBreaksAndReportsMaxStable) {
  auto inner = batching_server(1000, 0.1, nullptr);
  auto m = [&](double level) {
    auto x = inner(level);
    x->slo_ok = level <= 8;  // p99 TTFT above the bound from 16 on
    return x;
  };
  const auto r = search_saturation(2, SaturationOptions{}, m);
  EXPECT_EQ(r.stop_reason, "slo");
  EXPECT_EQ(r.points.back().level, 16);
  ASSERT_TRUE(r.max_stable);
  EXPECT_EQ(*r.max_stable, 8);
  EXPECT_EQ(r.peak_level, 16);
}

TEST(Saturation, StopsOnErrorsOnFailureAndOnInterrupt) {
  auto errors = [](double level) -> std::optional<LevelMeasure> {
    LevelMeasure x;
    x.level = level;
    x.qps = level;
    x.error_rate = level >= 4 ? 0.2 : 0;
    return x;
  };
  auto r = search_saturation(1, SaturationOptions{}, errors);
  EXPECT_EQ(r.stop_reason, "errors");
  EXPECT_EQ(*r.max_stable, 2);

  auto failing = [](double level) -> std::optional<LevelMeasure> {
    LevelMeasure x;
    x.level = level;
    x.failed = level > 1;
    x.qps = 1;
    return x;
  };
  r = search_saturation(1, SaturationOptions{}, failing);
  EXPECT_EQ(r.stop_reason, "failed");
  EXPECT_EQ(*r.max_stable, 1);

  r = search_saturation(1, SaturationOptions{},
                        [](double) { return std::optional<LevelMeasure>(); });
  EXPECT_EQ(r.stop_reason, "interrupted");
  EXPECT_TRUE(r.points.empty());
  EXPECT_FALSE(r.max_stable);
}

TEST(Saturation, ExplicitLevelsAndGeometricLimit) {
  SaturationOptions o;
  o.max_level = 20;
  o.factor = 3;
  std::vector<double> seen;
  search_saturation(2, o, batching_server(1000, 1, &seen));
  EXPECT_EQ(seen, (std::vector<double>{2, 6, 18}));
}

TEST(Saturation, AOneWaveLevelIsNeitherThePeakNorAKneeAndTheSearchGoesPastIt) {
  // A server saturating at 32; level 64 sent one request per client: the whole wave went in
  // together and its "throughput" (a batch's timing) beats every sustained level, while its
  // latency climbed. Taken as a rate it would be the peak, and 32 -> 64 no knee; 16 -> 64
  // compared as a plateau would have ended the search there.
  auto inner = batching_server(32, 0.5, nullptr);
  auto m = [&](double level) {
    auto x = inner(level);
    if (level == 64) {
      x->qps = 500;
      x->latency_ms = 400;
      x->sustained = false;
    }
    return x;
  };
  SaturationOptions o;
  o.levels = {16, 32, 64, 128};
  const auto r = search_saturation(16, o, m);
  ASSERT_EQ(r.points.size(), 4u);  // 64 neither stopped nor judged the search
  EXPECT_EQ(r.stop_reason, "saturated");
  ASSERT_TRUE(r.knee);
  EXPECT_EQ(*r.knee, 32);  // 128 against 32, the last sustained level
  EXPECT_DOUBLE_EQ(r.peak_qps, 64);
  EXPECT_EQ(r.peak_level, 32);
  EXPECT_EQ(r.one_wave, (std::vector<double>{64}));
  ASSERT_TRUE(r.max_stable);
  EXPECT_EQ(*r.max_stable, 128);  // stability does not need a rate
}

TEST(Saturation, AOneWaveLevelStillStopsTheSearchOnErrors) {
  auto inner = batching_server(32, 0.5, nullptr);
  auto m = [&](double level) {
    auto x = inner(level);
    x->sustained = level < 8;
    x->error_rate = level >= 8 ? 0.5 : 0;
    return x;
  };
  const auto r = search_saturation(1, SaturationOptions{}, m);
  EXPECT_EQ(r.stop_reason, "errors");
  EXPECT_EQ(r.points.back().level, 8);
  EXPECT_EQ(r.peak_level, 4);
}

// A server meeting the SLO up to 12.3 requests/s.
LevelMeasure rate_server(double rate) {
  LevelMeasure m;
  m.level = rate;
  m.qps = rate;
  m.slo_ok = rate <= 12.3;
  return m;
}

TEST(RateSearch, BisectsToTheHighestRateMeetingTheSlo) {
  RateSearchOptions o{.low = 1, .high = 33, .steps = 5};
  const auto r = bisect_rate(o, [](double x) { return std::optional(rate_server(x)); });
  EXPECT_EQ(r.stop_reason, "bisected");
  ASSERT_TRUE(r.max_stable_rate);
  // 33 fails, 1 ok, then 17 x, 9 ok, 13 x, 11 ok, 12 ok: within (33 - 1) / 2^5 = 1 of 12.3.
  EXPECT_EQ(*r.max_stable_rate, 12);
  EXPECT_EQ(r.points.size(), 7u);
}

TEST(RateSearch, HighOkAndLowFailing) {
  auto r = bisect_rate(RateSearchOptions{.low = 1, .high = 10},
                       [](double x) { return std::optional(rate_server(x)); });
  EXPECT_EQ(r.stop_reason, "high_ok");
  EXPECT_EQ(*r.max_stable_rate, 10);
  r = bisect_rate(RateSearchOptions{.low = 20, .high = 40},
                  [](double x) { return std::optional(rate_server(x)); });
  EXPECT_EQ(r.stop_reason, "low_fails");
  EXPECT_FALSE(r.max_stable_rate);
}

}  // namespace
}  // namespace sb::plan
