// calibrate recovers known parameters: run folders predicted (servebench predict sweep, virtual
// time) from a preset file of known non-default values at four levels, calibrated on three of
// them from the stock tgi preset; the fitted values are within 5% of the known ones, and the
// fitted preset, given to `predict sweep --sim FIT.yaml`, reproduces the held-out level.
//
// Identifiable here: bandwidth-efficiency (the decode step and its KV slope with the batch),
// mfu and prefill-overhead-ms (prefill time against prompts of 50..600 tokens), step-overhead-ms
// (the decode step beside the weight read), overhead-ms (TTFT at concurrency 1 beside the
// prefill). waiting-served-ratio is not asserted: its effect is a step function
// (floor(running x ratio) requests must wait), so a whole interval of values fits equally.
#include "../support/timing_slack.h"
#include "calibrate_support.h"

namespace sb::testing {
namespace {

constexpr const char* kTruth =
    "preset: tgi\nbandwidth_efficiency: 0.62\nmfu: 0.55\nstep_overhead_ms: 2.0\n"
    "prefill_overhead_ms: 7.0\noverhead_ms: 1.5\n";
constexpr const char* kWorkload =
    "--api tgi --input-dist uniform:min=50,max=600 --output-length 64 --ignore-eos --seed 5 "
    "-n 100";

TEST(CalibrateRecovery, RecoversKnownParametersFromPredictedRunsWithin5Percent) {
  // ~1,700 virtual-time runs: 12 s in an optimised build, past the 300 s limit in the Debug
  // build of the sanitizers. CalibrateFiles walks the same fit (bounded) under them.
  if (sanitized()) GTEST_SKIP() << "a full fit in the sanitizers' Debug build";
  const Scratch s("recovery");
  const fs::path truth = s.write("truth.yaml", kTruth);
  const fs::path runs = s.dir() / "runs";
  const auto sweep =
      run_servebench(fmt::format("predict sweep --sim {} {} --concurrency 1,4,8,16 -o {} -q",
                                 truth.string(), kWorkload, runs.string()));
  ASSERT_EQ(sweep.code, 0) << sweep.out;
  const fs::path fit = s.dir() / "fit.yaml";
  const auto cal =
      run_servebench(fmt::format("calibrate {} {} {} --preset tgi -o {}", (runs / "c1").string(),
                                 (runs / "c4").string(), (runs / "c16").string(), fit.string()));
  ASSERT_EQ(cal.code, 0) << cal.out;
  fmt::print("{}\n", cal.out);
  const auto got = fitted_values(fit);
  const std::map<std::string, double> want = {{"bandwidth-efficiency", 0.62},
                                              {"mfu", 0.55},
                                              {"step-overhead-ms", 2.0},
                                              {"prefill-overhead-ms", 7.0},
                                              {"overhead-ms", 1.5}};
  for (const auto& [name, value] : want) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_NEAR(got.at(name), value, 0.05 * value) << name;
  }
  // The held-out level, forecast with the fitted preset.
  const fs::path held = s.dir() / "held";
  const auto pred = run_servebench(fmt::format("predict sweep --sim {} {} --concurrency 8 -o {} -q",
                                               fit.string(), kWorkload, held.string()));
  ASSERT_EQ(pred.code, 0) << pred.out;
  const auto real = read_json(runs / "c8" / "summary.json");
  const auto fore = read_json(held / "c8" / "summary.json");
  for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"})
    for (const char* p : {"p50", "p90"}) {
      const double r = real["metrics"][m][p].get<double>();
      EXPECT_NEAR(fore["metrics"][m][p].get<double>(), r, 0.03 * r) << m << " " << p;
    }
  const double tps = real["throughput"]["output_tokens_per_s"].get<double>();
  EXPECT_NEAR(fore["throughput"]["output_tokens_per_s"].get<double>(), tps, 0.02 * tps);
}

}  // namespace
}  // namespace sb::testing
