// `servebench predict prof|sweep|run` as a user runs it: the run folders it writes are the live
// command's, marked predicted, and every report built on them says they are predictions.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../support/text_file.h"

namespace sb {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::run_servebench;

using sb::testing::slurp;

fs::path fresh(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / fmt::format("sb_predict_{}_{}", name, ::getpid());
  fs::remove_all(d);
  return d;
}

TEST(PredictCli, SweepWritesPredictedRunFoldersThatReportsNameAsPredictions) {
  const fs::path d = fresh("sweep");
  const auto r = run_servebench(
      fmt::format("predict sweep --sim tgi --api openai-chat --concurrency 1,16 --num-requests 40 "
                  "--input-length 128 --output-length 64 -o {}",
                  d.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("Predicted, not measured: all 2 runs were computed by "
                               "`servebench predict`"));
  for (const char* level : {"c1", "c16"}) {
    const auto s = nlohmann::json::parse(slurp(d / level / "summary.json"));
    EXPECT_EQ(s["config"]["predicted"], true);
    EXPECT_EQ(s["config"]["sim_time_scale"], 1.0);  // model time
    EXPECT_EQ(s["run"]["requests"]["ok"], 40);
    // requests.jsonl holds every request, as a live run writes it.
    std::ifstream in(d / level / "requests.jsonl");
    int lines = 0;
    for (std::string line; std::getline(in, line);) lines += line.empty() ? 0 : 1;
    EXPECT_EQ(lines, 40);
    // The simulator's /metrics, rendered in virtual time every second of model time: its
    // modelled GPU memory and utilisation, as a live run scrapes them.
    ASSERT_TRUE(s.contains("telemetry"));
    EXPECT_EQ(s["telemetry"]["sources"][0]["url"], "predicted:server");
    EXPECT_GT(s["telemetry"]["sources"][0]["ok"].get<int>(), 1);
    EXPECT_TRUE(fs::exists(d / level / "telemetry.jsonl"));
  }
  const auto rep =
      run_servebench(fmt::format("report {} -o {}", d.string(), (d / "report.html").string()));
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = slurp(d / "report.html");
  EXPECT_THAT(html, HasSubstr("Predicted, not measured"));
  EXPECT_THAT(html, HasSubstr("predicted in virtual time"));
  fs::remove_all(d);
}

TEST(PredictCli, ARealServerCannotBePredicted) {
  const fs::path d = fresh("real");
  const auto r = run_servebench(
      fmt::format("predict prof --base-url http://127.0.0.1:9 --num-requests 4 -o {}", d.string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("predict needs a simulated target: --sim PRESET"));
  fs::remove_all(d);
}

TEST(PredictCli, PredictAloneSaysWhatItNeeds) {
  const auto r = run_servebench("predict");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("give prof, sweep or run and its flags"));
  const auto help = run_servebench("--help");
  EXPECT_THAT(help.out, HasSubstr("predict"));
}

TEST(PredictCli, APlanIsPredictedWithoutItsCooldown) {
  const fs::path d = fresh("plan");
  fs::create_directories(d);
  {
    std::ofstream(d / "plan.yaml") << R"(name: p
providers:
  - {id: tgi, name: tgi, sim: tgi}
  - {id: fastapi, name: fastapi, sim: fastapi}
scenarios: [chat]
defaults: {api: tgi, cooldown: 60s, warmup: 2}
stages:
  - {name: s, kind: sweep, concurrency: [1, 4], num_requests: 20}
)";
  }
  const auto r = run_servebench(
      fmt::format("predict run {} -o {}", (d / "plan.yaml").string(), (d / "out").string()));
  ASSERT_EQ(r.code, 0) << r.out;  // 4 runs: with the 60 s cool-downs this would take 3 minutes
  const auto index = nlohmann::json::parse(slurp(d / "out" / "index.json"));
  ASSERT_EQ(index["runs"].size(), 4u);
  for (const auto& run : index["runs"]) {
    EXPECT_EQ(run["status"], "ok");
    const auto s =
        nlohmann::json::parse(slurp(d / "out" / run["folder"].get<std::string>() / "summary.json"));
    EXPECT_EQ(s["config"]["predicted"], true);
    EXPECT_EQ(s["run"]["requests"]["warmup"], 2);
    EXPECT_TRUE(run["gpu_mem_used_peak_mib"].is_number()) << run.dump();  // modelled, predicted
    EXPECT_TRUE(run["sm_util_mean_pct"].is_number()) << run.dump();
  }
  // index.csv carries the same GPU columns, row for row.
  std::ifstream csv(d / "out" / "index.csv");
  std::string header;
  std::getline(csv, header);
  std::vector<std::string> names;
  for (std::stringstream h(header); h.good();) {
    std::string n;
    std::getline(h, n, ',');
    names.push_back(n);
  }
  const auto col = [&](const std::string& n) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  ASSERT_LT(col("gpu_mem_used_peak_mib"), names.size()) << header;
  ASSERT_LT(col("sm_util_mean_pct"), names.size()) << header;
  ASSERT_LT(col("sim_time_scale"), names.size()) << header;
  for (const auto& run : index["runs"]) {
    std::string line;
    ASSERT_TRUE(std::getline(csv, line));
    std::vector<std::string> cells;
    for (std::stringstream l(line); l.good();) {
      std::string c;
      std::getline(l, c, ',');
      cells.push_back(c);
    }
    ASSERT_EQ(cells.size(), names.size()) << line;
    EXPECT_NEAR(std::stod(cells[col("gpu_mem_used_peak_mib")]),
                run["gpu_mem_used_peak_mib"].get<double>(), 0.5);
    EXPECT_NEAR(std::stod(cells[col("sm_util_mean_pct")]), run["sm_util_mean_pct"].get<double>(),
                0.05);
    EXPECT_EQ(std::stod(cells[col("sim_time_scale")]), 1.0);
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace sb
