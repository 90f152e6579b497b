// `servebench predict` against the live simulator it models: the same command, seed and
// workload run live (time-scaled, real sockets) and predicted (virtual time) must agree on
// TTFT, TPOT and e2e percentiles and on throughput within 3% at concurrency 1 to 64 (live
// times divided by the time scale are model time). The table is printed either way.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"

namespace sb {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_summary(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

struct Level {
  int concurrency;
  int requests;
  double time_scale;  // of the live run: small enough to be quick, large enough that the
                      // client's jitter stays small in model time
};

TEST(PredictAgreement, MatchesTheLiveSimulatorWithin3PercentFromConcurrency1To64) {
  const fs::path out =
      fs::temp_directory_path() / ("sb_predict_agree_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string workload =
      "--sim tgi --api tgi --output-length 50 --input-length 200 --ignore-eos --sim-seed 9";
  fmt::print("{:>5} {:<10} {:>12} {:>12} {:>8}\n", "conc", "metric", "live (model)", "predicted",
             "error");
  for (const Level& l : {Level{1, 10, 0.5}, Level{8, 48, 0.25}, Level{64, 128, 0.25}}) {
    const std::string common =
        fmt::format("{} --concurrency {} --num-requests {}", workload, l.concurrency, l.requests);
    const fs::path live = out / fmt::format("live-c{}", l.concurrency);
    const fs::path pred = out / fmt::format("pred-c{}", l.concurrency);
    const auto lr = testing::run_servebench(
        fmt::format("prof {} --sim-time-scale {} -o {} -q", common, l.time_scale, live.string()));
    ASSERT_EQ(lr.code, 0) << lr.out;
    const auto pr =
        testing::run_servebench(fmt::format("predict prof {} -o {} -q", common, pred.string()));
    ASSERT_EQ(pr.code, 0) << pr.out;
    const auto ls = read_summary(live);
    const auto ps = read_summary(pred);
    EXPECT_EQ(ps["config"]["predicted"], true);
    EXPECT_EQ(ps["run"]["requests"]["ok"], l.requests);
    auto check = [&](const std::string& name, double live_model, double predicted) {
      const double err = (predicted - live_model) / live_model;
      fmt::print("{:>5} {:<10} {:>12.2f} {:>12.2f} {:>+7.2f}%\n", l.concurrency, name, live_model,
                 predicted, 100 * err);
      EXPECT_LE(std::abs(err), 0.03) << name << " at concurrency " << l.concurrency;
    };
    for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"})
      for (const char* q : {"p50", "p99"})
        check(fmt::format("{}.{}", m, q), ls["metrics"][m][q].get<double>() / l.time_scale,
              ps["metrics"][m][q].get<double>());
    check("tokens/s", ls["throughput"]["output_tokens_per_s"].get<double>() * l.time_scale,
          ps["throughput"]["output_tokens_per_s"].get<double>());
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace sb
