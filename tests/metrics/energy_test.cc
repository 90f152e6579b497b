// metrics/energy.h: the trapezoid over samples clipped to the window, held edges, gaps, the
// "no figure" cases, idle power and the per-token figures.
#include "metrics/energy.h"

#include <cmath>

#include <gtest/gtest.h>

namespace sb::metrics {
namespace {

constexpr int64_t kS = 1'000'000'000;

PowerPoints ramp(int64_t from_s, int64_t to_s, int64_t step_ms, double w0, double slope) {
  PowerPoints p;
  for (int64_t t = from_s * 1000; t <= to_s * 1000; t += step_ms)
    p.emplace_back(t * 1'000'000, w0 + slope * static_cast<double>(t) / 1000);
  return p;
}

TEST(IntegratePower, ConstantPowerTimesWindow) {
  const auto r = integrate_power(ramp(0, 10, 1000, 150, 0), 2 * kS, 7 * kS, 2 * kS);
  ASSERT_TRUE(r.energy_j) << r.reason;
  EXPECT_DOUBLE_EQ(*r.energy_j, 150.0 * 5);
  EXPECT_EQ(r.gaps, 0);
  EXPECT_EQ(r.samples, 8);  // 2..7 s inside, and the neighbours either side (1 s, 8 s)
}

TEST(IntegratePower, LinearRampIsExactAndClippedBetweenSamples) {
  // P(t) = 100 + 20 t, samples every second; window 0.5 .. 4.25 s cuts two segments.
  const auto r = integrate_power(ramp(0, 6, 1000, 100, 20), kS / 2, 4 * kS + kS / 4, 2 * kS);
  ASSERT_TRUE(r.energy_j);
  const double a = 0.5, b = 4.25;
  EXPECT_NEAR(*r.energy_j, 100 * (b - a) + 10 * (b * b - a * a), 1e-9);
  EXPECT_EQ(r.samples, 6);  // 1..4 inside, 0 and 5 either side
}

TEST(IntegratePower, UnsortedAndNonFiniteSamples) {
  PowerPoints p = {{2 * kS, 200}, {0, 200}, {kS, std::nan("")}, {3 * kS, 200}};
  const auto r = integrate_power(p, 0, 3 * kS, 3 * kS);
  ASSERT_TRUE(r.energy_j);
  EXPECT_DOUBLE_EQ(*r.energy_j, 600);
}

TEST(IntegratePower, ShortUncoveredEdgesHoldTheNearestSample) {
  // Samples 1..3 s at 100 W; window 0.5..3.5 s: both edges held (0.5 s each).
  const auto r = integrate_power(ramp(1, 3, 1000, 100, 0), kS / 2, 3 * kS + kS / 2, kS);
  ASSERT_TRUE(r.energy_j);
  EXPECT_DOUBLE_EQ(*r.energy_j, 300);
  EXPECT_DOUBLE_EQ(r.gap_s, 1.0);
}

TEST(IntegratePower, LongUncoveredEdgeGivesNoFigure) {
  const auto r = integrate_power(ramp(0, 3, 1000, 100, 0), 0, 8 * kS, 2 * kS);
  EXPECT_FALSE(r.energy_j);
  EXPECT_EQ(r.reason, "power samples end 5 s before the measured window does");
  const auto late = integrate_power(ramp(5, 9, 1000, 100, 0), 0, 8 * kS, 2 * kS);
  EXPECT_EQ(late.reason, "power samples start 5 s after the measured window does");
}

TEST(IntegratePower, GapsAreBridgedAndCounted) {
  PowerPoints p = {{0, 100},      {kS, 100},     {4 * kS, 160}, {5 * kS, 100},
                   {7 * kS, 100}, {9 * kS, 100}, {10 * kS, 100}};
  const auto r = integrate_power(p, 0, 10 * kS, 2 * kS);
  ASSERT_TRUE(r.energy_j) << r.reason;
  EXPECT_DOUBLE_EQ(*r.energy_j, 1000 + 0.5 * 60 * 3 + 0.5 * 60 * 1);  // the line across the gap
  EXPECT_EQ(r.gaps, 1);  // 1..4 s (2 s apart is no gap)
  EXPECT_DOUBLE_EQ(r.gap_s, 3);
}

TEST(IntegratePower, MoreThanHalfTheWindowInGapsGivesNoFigure) {
  PowerPoints p = {{0, 100}, {kS, 100}, {9 * kS, 100}, {10 * kS, 100}};
  const auto r = integrate_power(p, 0, 10 * kS, 2 * kS);
  EXPECT_FALSE(r.energy_j);
  EXPECT_EQ(r.reason, "power samples are missing for 8 s of the 10 s window");
}

TEST(IntegratePower, FewerThanTwoSamplesOrNoWindow) {
  EXPECT_EQ(integrate_power({}, 0, kS, kS).reason, "no power samples");
  EXPECT_EQ(integrate_power({{0, 100}}, 0, kS, kS).reason,
            "1 power sample in or next to the measured window (2 needed)");
  EXPECT_EQ(integrate_power({{0, 100}, {kS, 100}}, kS, kS, kS).reason,
            "the measured window is empty");
}

TEST(MinPowerBefore, LowestSampleUpToTheInstant) {
  PowerPoints p = {{0, 80}, {kS, 61}, {2 * kS, 250}, {3 * kS, 40}};
  EXPECT_EQ(min_power_before(p, 2 * kS), 61);
  EXPECT_FALSE(min_power_before(p, -1));
}

TEST(EnergyOf, SumsSeriesWeightedByGpusAndDerivesPerToken) {
  EnergyInput in;
  in.series.push_back({"a", ramp(0, 10, 500, 200, 0), 1});
  in.series.push_back({"b", ramp(0, 10, 500, 100, 0), 2});  // a tp=2 replica's gauge
  in.window_start_ns = 0;
  in.window_end_ns = 10 * kS;
  in.max_gap_ns = kS;
  in.idle_power_w = 50;
  in.idle_source = "simulator";
  in.output_tokens = 8000;
  in.ok_requests = 40;
  in.good_requests = 20;
  const EnergySummary s = energy_of(in);
  ASSERT_TRUE(s.available) << s.reason;
  EXPECT_EQ(s.gpus, 3);
  EXPECT_DOUBLE_EQ(s.total.energy_j, 2000 + 2 * 1000);
  EXPECT_DOUBLE_EQ(s.total.mean_power_w, 400);
  EXPECT_DOUBLE_EQ(*s.total.j_per_output_token, 0.5);
  EXPECT_DOUBLE_EQ(*s.total.output_tokens_per_j, 2);
  EXPECT_DOUBLE_EQ(*s.total.j_per_request, 100);
  EXPECT_DOUBLE_EQ(*s.total.goodput_per_w, 20.0 / 4000);  // (20/10 s) / 400 W
  ASSERT_TRUE(s.above_idle);
  EXPECT_DOUBLE_EQ(s.above_idle->energy_j, 4000 - 50 * 3 * 10);
  EXPECT_DOUBLE_EQ(*s.above_idle->j_per_output_token, 2500.0 / 8000);
}

TEST(EnergyOf, TimeScaledSimulatorIsInModelTime) {
  EnergyInput in;
  in.series.push_back({"a", ramp(0, 1, 100, 300, 0), 1});
  in.window_end_ns = kS;
  in.max_gap_ns = kS / 4;
  in.output_tokens = 1000;
  in.time_scale = 0.1;  // one wall second is ten model seconds
  const EnergySummary s = energy_of(in);
  ASSERT_TRUE(s.available);
  EXPECT_EQ(s.time_base, "model");
  EXPECT_DOUBLE_EQ(s.window_s, 10);
  EXPECT_NEAR(s.total.energy_j, 3000, 1e-9);
  EXPECT_NEAR(s.total.mean_power_w, 300, 1e-9);
  EXPECT_FALSE(s.total.goodput_per_w);  // no SLO
  EXPECT_FALSE(s.above_idle);
}

TEST(EnergyOf, ASeriesWithoutAFigureMakesItUnavailable) {
  EnergyInput in;
  in.series.push_back({"gpu/power_w{device=\"0\"}", ramp(0, 10, 1000, 100, 0), 1});
  in.series.push_back({"gpu/power_w{device=\"1\"}", {{0, 100}}, 1});
  in.window_end_ns = 10 * kS;
  in.max_gap_ns = 2 * kS;
  const EnergySummary s = energy_of(in);
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.reason,
            "gpu/power_w{device=\"1\"}: 1 power sample in or next to the measured window (2 "
            "needed)");
  EXPECT_FALSE(energy_of(EnergyInput{}).available);
}

}  // namespace
}  // namespace sb::metrics
