// `servebench predict` against the live simulator it models: the same command, seed and
// workload run live (time-scaled, real sockets) and predicted (virtual time) must agree on
// TTFT, TPOT and e2e percentiles and on throughput within 3% at concurrency 1 to 64 (live
// times divided by the time scale are model time; a p99 also gets one scheduling delay of
// the machine, below; a percentile is compared at the resolution of one request), closed and
// open loop, with and without the serial lock. The table is printed either way, and an open
// loop's requests that differ one by one.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "metrics/distribution.h"

namespace sb {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_summary(const fs::path& dir) {
  return nlohmann::json::parse(testing::slurp(dir / "summary.json"));
}

// One metric of a run's measured requests (ok, not warm-up), in model time.
struct Samples {
  std::map<int64_t, double> by_id;
  std::vector<double> sorted;
};

// ttft_ms, tpot_ms and e2e_ms of the measured requests in `dir`'s requests.jsonl, each divided
// by `time_scale`.
std::map<std::string, Samples> read_samples(const fs::path& dir, double time_scale) {
  std::map<std::string, Samples> out;
  std::istringstream in(testing::slurp(dir / "requests.jsonl"));
  for (std::string line; std::getline(in, line);) {
    const auto r = nlohmann::json::parse(line);
    if (!r["ok"].get<bool>() || r["warmup"].get<bool>()) continue;
    for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"})
      if (r[m].is_number()) out[m].by_id[r["id"].get<int64_t>()] = r[m].get<double>() / time_scale;
  }
  for (auto& [m, s] : out) {
    for (const auto& [id, v] : s.by_id) s.sorted.push_back(v);
    std::sort(s.sorted.begin(), s.sorted.end());
  }
  return out;
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
  // error: predicted against the live percentile; beyond: against the nearest live percentile
  // within one rank (what is bounded).
  fmt::print("{:<8} {:<22} {:<12} {:>12} {:>21} {:>12} {:>8} {:>8} {:>7}\n", "preset", "load",
             "metric", "live (model)", "live +-1 rank", "predicted", "error", "beyond", "bound");
  const std::vector<Level> levels = {
      // At one stream the p99 of 10 is their maximum, and the live run's first request pays
      // the cold start (first connection, first page faults: measured +0.1 to +1.3 ms wall,
      // up to 4.5% of a 29 ms TTFT at scale 0.5). A warm-up request takes it, and scale 1
      // halves what the remaining jitter weighs in model time.
      {"tgi", "--concurrency 1", 10, 1.0, 0, 1},
      {"tgi", "--concurrency 8", 48, 0.25},
      {"tgi", "--concurrency 64", 128, 0.25},
      // An open loop: one seeded schedule. Each TTFT races the simulator's step boundaries, and
      // a busy machine delays its engine by a few ms (one busy loop beside the test: 11 of 32
      // TTFTs 4-15 ms wall late, the p50 +14% at scale 0.5), so scale 1 (21 s).
      {"tgi", "--arrival poisson (1.5/s)", 32, 1.0, 1.5},
      {"fastapi", "--concurrency 4", 12, 0.25},  // generate() holds the event loop
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
    // stream with two builds beside it: one TTFT 3.5 ms late, 6% of the p99; at 8 streams with
    // one busy loop beside it: the slowest TTFT 5.5 ms late, a wake-up behind another runnable
    // task). The p99 bounds add one such delay, kJitterMs wall x slack() (load-scaled, the
    // load average lagging a new neighbour by up to a minute), in model time: whole to TTFT and
    // e2e, 1/49th to TPOT (a mean over a request's 49 intervals).
    constexpr double kJitterMs = 2.0;
    const double jitter_model_ms = kJitterMs * testing::slack() / l.time_scale;
    auto jitter_of = [&](const std::string& metric) {
      return metric == "tpot_ms" ? jitter_model_ms / 49 : jitter_model_ms;
    };
    // A percentile is compared at the resolution of one request. A request that reaches the
    // server within the machine's scheduling delay of a scheduler decision (a step boundary,
    // an admission) can be served a step later live than modelled; where the samples have a
    // gap at the percentile's rank, that one request moves the percentile across the gap (CI,
    // the open loop: TTFT of an idle server 58 ms, behind another's prefill 115 ms and more;
    // p50 of 32 requests 79.95 -> 99.47 ms when one of them flipped). So the predicted
    // percentile must be within the bound of the live samples' percentile anywhere from one
    // rank below to one rank above. A model error moves every rank, a flip one or two: the
    // median over the ranks of predicted / live (the i-th smallest of each run) is held to 3%
    // and one delay (below).
    auto check = [&](const std::string& name, double live_at, double live_lo, double live_hi,
                     double predicted, double jitter_ms) {
      const double err = (predicted - std::clamp(predicted, live_lo, live_hi)) / live_at;
      const double bound = 0.03 + jitter_ms / live_at;
      fmt::print("{:<8} {:<22} {:<12} {:>12.2f} {:>21} {:>12.2f} {:>+7.2f}% {:>+7.2f}% {:>6.2f}%\n",
                 l.preset, l.load, name, live_at, fmt::format("{:.2f}..{:.2f}", live_lo, live_hi),
                 predicted, 100 * (predicted - live_at) / live_at, 100 * err, 100 * bound);
      EXPECT_LE(std::abs(err), bound) << name << " of " << l.preset << " at " << l.load;
    };
    const auto live_samples = read_samples(live, l.time_scale);
    const auto pred_samples = read_samples(pred, 1.0);
    for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
      const std::vector<double>& sorted = live_samples.at(m).sorted;
      ASSERT_EQ(sorted.size(), static_cast<size_t>(l.requests));
      const std::vector<double>& pred_sorted = pred_samples.at(m).sorted;
      ASSERT_EQ(pred_sorted.size(), sorted.size());
      std::vector<double> ratios;
      for (size_t i = 0; i < sorted.size(); ++i) ratios.push_back(pred_sorted[i] / sorted[i]);
      std::sort(ratios.begin(), ratios.end());
      const double median_ratio = metrics::percentile_sorted(ratios, 50);
      const double ratio_bound = 0.03 + jitter_of(m) / metrics::percentile_sorted(sorted, 50);
      fmt::print("{:<8} {:<22} {:<12} median over ranks of predicted / live {:>+7.2f}% {:>6.2f}%\n",
                 l.preset, l.load, m, 100 * (median_ratio - 1), 100 * ratio_bound);
      EXPECT_LE(std::abs(median_ratio - 1), ratio_bound)
          << m << " of " << l.preset << " at " << l.load << ": a shift of every rank";
      const double rank_pct = 100.0 / static_cast<double>(sorted.size() - 1);
      for (const double q : {50.0, 99.0}) {
        const double live_at =
            ls["metrics"][m][fmt::format("p{:g}", q)].get<double>() / l.time_scale;
        EXPECT_NEAR(live_at, metrics::percentile_sorted(sorted, q), 1e-3 * live_at)
            << "the summary's percentile is the samples'";
        check(fmt::format("{}.p{:g}", m, q), live_at,
              metrics::percentile_sorted(sorted, std::max(0.0, q - rank_pct)),
              metrics::percentile_sorted(sorted, std::min(100.0, q + rank_pct)),
              ps["metrics"][m][fmt::format("p{:g}", q)].get<double>(),
              q == 50.0 ? 0.0 : jitter_of(m));
      }
    }
    if (l.rate > 0) {
      // The same seeded schedule, in model time.
      EXPECT_NEAR(ls["load"]["achieved_rate"].get<double>() * l.time_scale,
                  ps["load"]["achieved_rate"].get<double>(), 0.03 * l.rate);
      // Request i arrives at the same model instant in both runs, so the requests that differ
      // one by one are printed, to explain a percentile out of its bound. Not asserted: the
      // live open loop measures from the intended send time, so on a busy machine every
      // request carries the client's own dispatch delay (measured with a build beside the
      // test: 17 of 32 TTFTs 7 ms wall late), which the percentile bounds already weigh.
      int differing = 0;
      for (const auto& [id, live_ttft] : live_samples.at("ttft_ms").by_id) {
        bool differs = false;
        for (const char* m : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
          const auto it = pred_samples.at(m).by_id.find(id);
          ASSERT_NE(it, pred_samples.at(m).by_id.end()) << "request " << id << " not predicted";
          const double v = live_samples.at(m).by_id.at(id);
          if (std::abs(it->second - v) > 0.03 * v + jitter_of(m)) {
            differs = true;
            fmt::print("  request {} {}: live {:.2f} predicted {:.2f}\n", id, m, v, it->second);
          }
        }
        differing += differs ? 1 : 0;
      }
      fmt::print("  {} of {} requests differ one by one beyond 3% and one delay\n", differing,
                 l.requests);
    }
    const double live_tps = ls["throughput"]["output_tokens_per_s"].get<double>() * l.time_scale;
    check("tokens/s", live_tps, live_tps, live_tps,
          ps["throughput"]["output_tokens_per_s"].get<double>(), 0.0);
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace sb
