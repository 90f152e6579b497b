// The pure parts of calibrate: the bounded Nelder–Mead search, the parameter transforms, the
// objective, the relative errors and their statistics.
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/calibrate.h"
#include "calibrate/fit_params.h"
#include "calibrate/nelder_mead.h"
#include "calibrate/residuals.h"
#include "sim/config.h"

namespace sb::calibrate {
namespace {

TEST(NelderMead, FindsTheMinimumOfAShiftedQuadraticDeterministically) {
  const auto f = [](const std::vector<double>& x) {
    return std::pow(x[0] - 1.5, 2) + 3 * std::pow(x[1] + 0.5, 2) + std::pow(x[2] - 0.2, 2);
  };
  const std::vector<double> lo(3, -5), hi(3, 5);
  const NelderMeadResult a = nelder_mead(f, {0, 0, 0}, lo, hi);
  EXPECT_NEAR(a.x[0], 1.5, 1e-4);
  EXPECT_NEAR(a.x[1], -0.5, 1e-4);
  EXPECT_NEAR(a.x[2], 0.2, 1e-4);
  EXPECT_LT(a.f, 1e-8);
  const NelderMeadResult b = nelder_mead(f, {0, 0, 0}, lo, hi);
  EXPECT_EQ(a.x, b.x) << "deterministic";
  EXPECT_EQ(a.evaluations, b.evaluations);
}

TEST(NelderMead, StaysInsideTheBoxAndStopsAtItsEdge) {
  const auto f = [](const std::vector<double>& x) { return std::pow(x[0] - 10, 2) + x[1] * x[1]; };
  const NelderMeadResult r = nelder_mead(f, {0, 1}, {-1, -1}, {2, 1});
  EXPECT_NEAR(r.x[0], 2, 1e-6) << "the minimum outside the box: its edge";
  EXPECT_NEAR(r.x[1], 0, 1e-2);
}

TEST(FitParams, TheInterferenceKnobFollowsThePrefillMode) {
  const auto names = [](const sim::SimConfig& c) {
    std::vector<std::string> n;
    for (const auto& p : fit_params_for(c)) n.push_back(p.name);
    return n;
  };
  const std::vector<std::string> common = {"bandwidth-efficiency", "mfu", "step-overhead-ms",
                                           "prefill-overhead-ms", "overhead-ms"};
  auto tgi = common;
  tgi.push_back("waiting-served-ratio");
  EXPECT_EQ(names(sim::preset_config("tgi")), tgi);
  EXPECT_EQ(names(sim::preset_config("pytorch")), common) << "fused: no interference knob";
  sim::SimConfig vllm = sim::preset_config("tgi");
  vllm.sched.prefill_mode = sim::PrefillMode::chunked;
  auto chunked = common;
  chunked.push_back("max-num-batched-tokens");
  EXPECT_EQ(names(vllm), chunked);
}

TEST(FitParams, TransformsRoundTripWithinBoundsAndReachZero) {
  for (const FitParam& p : fit_params_for(sim::preset_config("tgi"))) {
    for (double x : {p.lo, p.hi, 0.5 * (p.lo + p.hi)})
      EXPECT_NEAR(from_u(p, to_u(p, x)), x, 1e-9 * std::max(1.0, x)) << p.name;
    EXPECT_EQ(from_u(p, 1e9), p.hi) << p.name;
    EXPECT_EQ(from_u(p, -1e9), p.lo) << p.name << ": an overhead can reach its bound, 0";
  }
}

TEST(Residuals, SignedAndAbsoluteErrorStatistics) {
  EXPECT_NEAR(*relative_error(100.0, 110.0), 0.1, 1e-12);
  EXPECT_NEAR(*relative_error(100.0, 90.0), -0.1, 1e-12);
  EXPECT_FALSE(relative_error(std::nullopt, 1.0));
  EXPECT_FALSE(relative_error(0.0, 1.0));
  const ErrorStats s = error_stats({0.1, -0.2, 0.3, -0.4});
  EXPECT_EQ(s.count, 4);
  EXPECT_NEAR(s.mean_signed, -0.05, 1e-12);
  EXPECT_NEAR(s.mean_abs, 0.25, 1e-12);
  EXPECT_NEAR(s.p50_abs, 0.25, 1e-12);  // numpy: between 0.2 and 0.3
  EXPECT_NEAR(s.p90_abs, 0.37, 1e-12);  // 0.3 + 0.7 x 0.1
  EXPECT_NEAR(s.p99_abs, 0.397, 1e-12);
  EXPECT_EQ(error_stats({}).count, 0);
}

TEST(Objective, WeighsEachLevelsMediansP90sAndThroughputNotItsP99s) {
  MeasuredRun run;
  run.measured = {10.0, 12.0, 20.0, 2.0, 2.2, 3.0, 70.0, 75.0, 95.0, 450.0};
  std::vector<LevelMetrics> predicted = {run.measured};
  EXPECT_EQ(mean_squared_log_error({run}, predicted), 0);
  // The p99s (a level's slowest request or two) are reported, not fitted.
  for (size_t m = 0; m < kMetricNames.size(); ++m)
    if (kMetricNames[m].find("_p99") != std::string_view::npos) predicted[0][m] = 1.0;
  EXPECT_EQ(mean_squared_log_error({run}, predicted), 0);
  // A median, a p90 or the throughput off by e: the mean over the seven fitted figures.
  predicted[0][3] = 2.0 * std::exp(0.2);     // tpot_p50_ms
  predicted[0][7] = 75.0 * std::exp(0.1);    // e2e_p90_ms
  predicted[0][9] = 450.0 * std::exp(-0.4);  // output_tokens_per_s
  EXPECT_NEAR(mean_squared_log_error({run}, predicted), (0.04 + 0.01 + 0.16) / 7, 1e-12);
  // A figure missing on either side is left out of the mean.
  predicted[0][0] = std::nullopt;
  EXPECT_NEAR(mean_squared_log_error({run}, predicted), (0.04 + 0.01 + 0.16) / 6, 1e-12);
}

}  // namespace
}  // namespace sb::calibrate
