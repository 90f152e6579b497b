// `servebench predict` against the live simulator it models: the same command, seed and
// workload run live (time-scaled, real sockets) and predicted (virtual time) must agree on
// TTFT, TPOT and e2e percentiles and on throughput within 3% at concurrency 1 to 64 (live
// times divided by the time scale are model time; a p99 also gets one scheduling delay of
// the machine, below), closed and open loop, with and without the serial lock. The table is
// printed either way.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../support/text_file.h"
#include "../support/timing_slack.h"

namespace sb {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_summary(const fs::path& dir) {
  return nlohmann::json::parse(testing::slurp(dir / "summary.json"));
}

struct Level {
  std::string preset;
  std::string load;  // the load flags
  int requests;
  double time_scale;  // of the live run: small enough to be quick, large enough that the
                      // client's jitter stays small in model time
  double rate = 0;    // open loop: requests per model second (live: rate / time_scale per second)
  int warmup = 0;     // requests sent first and not measured, in both runs
};

TEST(PredictAgreement, MatchesTheLiveSimulatorWithin3PercentFromConcurrency1To64) {
  // Under the sanitizers the live client and simulator run several times slower, and at 64
  // streams their own delays reach the p99s (measured: TPOT p99 +18%): the comparison would
  // measure the sanitizer. The plain build's pass checks the model.
  if (testing::sanitized()) GTEST_SKIP() << "live timing under the sanitizers";
  const fs::path out =
      fs::temp_directory_path() / ("sb_predict_agree_" + std::to_string(::getpid()));
  fs::remove_all(out);
  fmt::print("{:<8} {:<22} {:<12} {:>12} {:>12} {:>8} {:>7}\n", "preset", "load", "metric",
             "live (model)", "predicted", "error", "bound");
  const std::vector<Level> levels = {
      // At one stream the p99 of 10 is their maximum, and the live run's first request pays
      // the cold start (first connection, first page faults: measured +0.1 to +1.3 ms wall,
      // up to 4.5% of a 29 ms TTFT at scale 0.5). A warm-up request takes it, and scale 1
      // halves what the remaining jitter weighs in model time.
      {"tgi", "--concurrency 1", 10, 1.0, 0, 1},
      {"tgi", "--concurrency 8", 48, 0.25},
      {"tgi", "--concurrency 64", 128, 0.25},
      {"tgi", "--arrival poisson (1.5/s)", 32, 0.5, 1.5},  // open loop, one seeded schedule
      {"fastapi", "--concurrency 4", 12, 0.25},            // generate() holds the event loop
  };
  int i = 0;
  for (const Level& l : levels) {
    const std::string common = fmt::format(
        "--sim {} --api tgi --output-length 50 --input-length 200 --ignore-eos --sim-seed 9 "
        "--seed 3 {} --num-requests {} --warmup {}",
        l.preset, l.rate > 0 ? "--arrival poisson" : l.load, l.requests, l.warmup);
    // A live open loop at R per wall second offers R x S per model second.
    const std::string live_rate =
        l.rate > 0 ? fmt::format(" --request-rate {}", l.rate / l.time_scale) : "";
    const std::string model_rate = l.rate > 0 ? fmt::format(" --request-rate {}", l.rate) : "";
    const fs::path live = out / fmt::format("live-{}", i);
    const fs::path pred = out / fmt::format("pred-{}", i++);
    const auto lr = testing::run_servebench(fmt::format(
        "prof {}{} --sim-time-scale {} -o {} -q", common, live_rate, l.time_scale, live.string()));
    ASSERT_EQ(lr.code, 0) << lr.out;
    const auto pr = testing::run_servebench(
        fmt::format("predict prof {}{} -o {} -q", common, model_rate, pred.string()));
    ASSERT_EQ(pr.code, 0) << pr.out;
    const auto ls = read_summary(live);
    const auto ps = read_summary(pred);
    EXPECT_EQ(ps["config"]["predicted"], true);
    EXPECT_EQ(ps["run"]["requests"]["ok"], l.requests);
    // A live p99 of a few dozen requests is their slowest one or two, so it also carries the
    // machine's worst scheduling delay, which the model has no part in (measured at one
    // stream with two builds beside it: one TTFT 3.5 ms late, 6% of the p99). The p99 bounds
    // add one such delay, kJitterMs wall x slack() (load-scaled), in model time: whole to
    // TTFT and e2e, 1/49th to TPOT (a mean over a request's 49 intervals).
    constexpr double kJitterMs = 1.0;
    const double jitter_model_ms = kJitterMs * testing::slack() / l.time_scale;
    auto check = [&](const std::string& name, double live_model, double predicted,
                     double jitter_ms) {
      const double err = (predicted - live_model) / live_model;
      const double bound = 0.03 + jitter_ms / live_model;
      fmt::print("{:<8} {:<22} {:<12} {:>12.2f} {:>12.2f} {:>+7.2f}% {:>6.2f}%\n", l.preset, l.load,
                 name, live_model, predicted, 100 * err, 100 * bound);
      EXPECT_LE(std::abs(err), bound) << name << " of " << l.preset << " at " << l.load;
    };
    for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"})
      for (const char* q : {"p50", "p99"}) {
        const double jitter = std::string(q) == "p50"       ? 0.0
                              : std::string(m) == "tpot_ms" ? jitter_model_ms / 49
                                                            : jitter_model_ms;
        check(fmt::format("{}.{}", m, q), ls["metrics"][m][q].get<double>() / l.time_scale,
              ps["metrics"][m][q].get<double>(), jitter);
      }
    if (l.rate > 0) {  // the same seeded schedule, in model time
      EXPECT_NEAR(ls["load"]["achieved_rate"].get<double>() * l.time_scale,
                  ps["load"]["achieved_rate"].get<double>(), 0.03 * l.rate);
    }
    check("tokens/s", ls["throughput"]["output_tokens_per_s"].get<double>() * l.time_scale,
          ps["throughput"]["output_tokens_per_s"].get<double>(), 0.0);
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace sb
