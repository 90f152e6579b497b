// --rate-pattern and --abandon-after as users give them: the pattern shapes the run's sends,
// summary.json records it, and bad values are usage errors (exit 2) naming the flag.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "load/arrival_schedule.h"
#include "run_binary.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("pattern-" + name, /*create=*/false);
}

TEST(RatePatternCli, SendsOnThePatternsScheduleAndRecordsIt) {
  const fs::path dir = temp_dir("flash");
  const CmdResult r = run_servebench(
      "prof --sim instant --api openai --request-rate 50 --arrival constant --seed 3 "
      "--rate-pattern 'flash:at=200ms,peak=4,decay=300ms' -n 40 --output-length 4 "
      "--no-progress --quiet -o " +
      dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(dir / "summary.json");
  const json s = json::parse(in);
  EXPECT_EQ(s["config"]["load"]["rate_pattern"], "flash:at=0.2s,peak=4,decay=0.3s");
  EXPECT_EQ(s["load"]["target_rate"], 50.0);
  // Every request's intended send time is the pattern's schedule (the measured phase starts
  // at t_sched of request 0).
  load::ScheduleConfig c{.rate_per_s = 50, .arrival = load::Arrival::constant, .seed = 3};
  c.pattern = load::parse_rate_pattern("flash:at=200ms,peak=4,decay=300ms");
  const auto offsets = load::make_schedule(c, 40);
  std::ifstream jsonl(dir / "requests.jsonl");
  std::vector<json> reqs;
  for (std::string line; std::getline(jsonl, line);) reqs.push_back(json::parse(line));
  ASSERT_EQ(reqs.size(), 40u);
  std::sort(reqs.begin(), reqs.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  const double t0 = reqs[0]["t_sched_s"].get<double>();
  for (size_t i = 0; i < reqs.size(); ++i)
    EXPECT_NEAR(reqs[i]["t_sched_s"].get<double>() - t0,
                static_cast<double>(offsets[i].count()) / 1e9, 2e-6)
        << i;
  // The flash: the gaps after 200 ms are a quarter of the 20 ms before it, growing back.
  EXPECT_NEAR(static_cast<double>((offsets[11] - offsets[10]).count()) / 1e6, 5.0, 0.5);
  fs::remove_all(dir);
}

TEST(RatePatternCli, BadValuesAreUsageErrorsNamingTheFlag) {
  const fs::path dir = temp_dir("bad");
  CmdResult r = run_servebench(
      "prof --sim instant --request-rate 5 -n 2 --rate-pattern "
      "'diurnal:period=10s,amplitude=2' -o " +
      dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--rate-pattern 'diurnal:period=10s,amplitude=2': amplitude must be"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("onoff:on=DUR,off=DUR"), std::string::npos) << r.out;  // the forms
  r = run_servebench(
      "prof --sim instant --concurrency 2 -n 2 --rate-pattern "
      "'onoff:on=1s,off=1s' -o " +
      dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--rate-pattern shapes an open loop"), std::string::npos) << r.out;
  r = run_servebench("prof --sim instant -n 2 --abandon-after 0s -o " + dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--abandon-after"), std::string::npos) << r.out;
  r = run_servebench("prof --sim instant -n 2 --abandon-after soon -o " + dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--abandon-after"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "summary.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::testing
