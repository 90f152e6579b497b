// calibrate on a real server: examples/backends/pytorch_native.py (the tiny GPT on PyTorch, CPU,
// one request at a time) measured at concurrency 1, 2 and 8, fitted from a base preset file of
// the tiny model on a CPU (tests/calibrate/tinygpt_cpu.yaml), must forecast concurrency 4 and
// 16 on output tokens/s and median e2e (issue 16, item 5: 15%, printed; 50% asserted). Skips
// without /usr/bin/python3's torch, fastapi and uvicorn (scripts/install-deps.sh --backends).
#include "../backends/backend_harness.h"
#include "../support/timing_slack.h"
#include "calibrate_support.h"

namespace sb::testing {
namespace {

constexpr const char* kWorkload =
    "--api tgi --input-length 64 --output-length 32 --ignore-eos --warmup 2 --seed 3";

TEST(CalibrateBackend, FitOnConcurrency1And2And8ForecastsConcurrency4And16) {
  SKIP_WITHOUT_BACKEND_DEPS();
  // The measured server shares the machine's cores with the client: under the sanitizers the
  // client's own cost changes the measured levels, and the fit would model the sanitizer.
  if (sanitized()) GTEST_SKIP() << "a real server measured with a sanitized client";
  const Scratch s("backend");
  Backend server("pytorch_native.py", {}, s.dir());
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;
  const fs::path runs = s.dir() / "runs";
  const auto sweep = run_servebench(
      fmt::format("sweep --base-url {} {} --concurrency 1,2,4,8,16 -n 48 -o {} -q --no-progress "
                  "--gpu-telemetry off",
                  server.url(), kWorkload, runs.string()));
  ASSERT_EQ(sweep.code, 0) << sweep.out << server.stderr_text();
  EXPECT_EQ(server.stop(), 0) << server.stderr_text();

  const fs::path base = fs::path(SERVEBENCH_SOURCE_DIR) / "tests/calibrate/tinygpt_cpu.yaml";
  const fs::path fit = s.dir() / "fit.yaml";
  const auto cal = run_servebench(fmt::format("calibrate {} {} {} --preset {} -o {}",
                                              (runs / "c1").string(), (runs / "c2").string(),
                                              (runs / "c8").string(), base.string(), fit.string()));
  ASSERT_EQ(cal.code, 0) << cal.out;
  fmt::print("{}\n", cal.out);
  const fs::path held = s.dir() / "held";
  const auto pred =
      run_servebench(fmt::format("predict sweep --sim {} {} --concurrency 4,16 -n 48 -o {} -q",
                                 fit.string(), kWorkload, held.string()));
  ASSERT_EQ(pred.code, 0) << pred.out;
  fmt::print("{:<6} {:<20} {:>10} {:>10} {:>8}\n", "level", "metric", "measured", "forecast",
             "error");
  for (const char* level : {"c4", "c16"}) {
    const auto real = read_json(runs / level / "summary.json");
    const auto fore = read_json(held / level / "summary.json");
    const std::pair<double, double> figures[] = {
        {real["throughput"]["output_tokens_per_s"].get<double>(),
         fore["throughput"]["output_tokens_per_s"].get<double>()},
        {real["metrics"]["e2e_ms"]["p50"].get<double>(),
         fore["metrics"]["e2e_ms"]["p50"].get<double>()}};
    const char* names[] = {"output_tokens_per_s", "e2e_p50_ms"};
    for (int i = 0; i < 2; ++i) {
      const auto [r, f] = figures[i];
      fmt::print("{:<6} {:<20} {:>10.1f} {:>10.1f} {:>+7.1f}%\n", level, names[i], r, f,
                 (f / r - 1) * 100);
      // The target is 15%; it is printed, not asserted: this CPU server's own speed at
      // one level moves by ±20% between runs on a shared 2-core machine (c4: 346, 433, 465, 480
      // tok/s; c16 once above c4), more than the target. Asserted: within 50% x the machine's
      // load, which a fit in the wrong units or from the wrong runs misses by far.
      fmt::print("{:<6} {:<20} within 15%: {}\n", level, names[i],
                 std::abs(f / r - 1) <= 0.15 ? "yes" : "NO");
      EXPECT_NEAR(f, r, 0.50 * slack() * r) << level << " " << names[i];
    }
  }
}

}  // namespace
}  // namespace sb::testing
