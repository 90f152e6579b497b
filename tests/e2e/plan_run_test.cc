// `servebench run` and `servebench sweep` as users run them: the reference-study plan end to
// end (shortened by flags), index files, per-run files, the HTML report of the plan folder,
// secrets kept out of every file, and bad input (no base URL, launch failing or never ready)
// keeping the runs completed before it.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/text_file.h"
#include "plan/launcher.h"
#include "run_binary.h"

namespace sb {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::run_servebench;

using sb::testing::slurp;

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("sb_plan_e2e_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(PlanRun, ReferenceStudyEndToEnd) {
  const fs::path out = fresh_dir("study");
  const auto r =
      run_servebench(std::string("run ") + SERVEBENCH_SOURCE_DIR +
                     "/examples/reference-study.yaml --sim-time-scale 0.001 --scale 0.05 -o " +
                     (out / "plan").string());
  ASSERT_EQ(r.code, 0) << r.out;
  // The comparison table: every provider x scenario.
  for (const char* p : {"pytorch", "fastapi", "tgi"})
    for (const char* s : {"chat", "long", "mixed"})
      EXPECT_THAT(r.out, ::testing::ContainsRegex(std::string(p) + " +" + s)) << r.out;

  const auto index = nlohmann::json::parse(slurp(out / "plan" / "index.json"));
  EXPECT_EQ(index["schema"], "servebench.plan-index/1");
  EXPECT_EQ(index["plan"], "reference-study");
  EXPECT_TRUE(index["finished"].get<bool>());
  // 3 providers x 3 scenarios x (1 baseline + 6 sweep levels).
  ASSERT_EQ(index["runs"].size(), 63u);
  std::map<std::string, int> gpu_util_rows, gpu_bw_rows;
  for (const auto& run : index["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const fs::path folder = out / "plan" / run["folder"].get<std::string>();
    for (const char* f : {"summary.json", "summary.csv", "requests.jsonl"})
      EXPECT_TRUE(fs::exists(folder / f)) << folder / f;
    EXPECT_GT(run["qps"].get<double>(), 0);
    EXPECT_TRUE(run["e2e_p99_ms"].is_number());
    const auto summary = nlohmann::json::parse(slurp(folder / "summary.json"));
    EXPECT_EQ(summary["config"]["provider"], run["provider"]);
    EXPECT_EQ(summary["config"]["scenario"], run["scenario"]);
    EXPECT_EQ(summary["config"]["stage"], run["stage"]);
    // Telemetry in every run: the simulator's DCGM-style GPU metrics, scraped from its
    // /metrics, in telemetry.jsonl, the summary and the index row.
    EXPECT_TRUE(fs::exists(folder / "telemetry.jsonl")) << folder;
    ASSERT_TRUE(summary["telemetry"].is_object()) << folder;
    EXPECT_GT(run["gpu_mem_used_peak_mib"].get<double>(), 0) << run.dump();
    if (run["sm_util_mean_pct"].is_number()) ++gpu_util_rows[run["provider"].get<std::string>()];
    if (run["mem_bw_util_mean_pct"].is_number()) ++gpu_bw_rows[run["provider"].get<std::string>()];
  }
  // Utilisation means need a few samples: every backend has them at some load.
  for (const char* p : {"pytorch", "fastapi", "tgi"}) {
    EXPECT_GT(gpu_util_rows[p], 0) << p;
    EXPECT_GT(gpu_bw_rows[p], 0) << p;
  }
  EXPECT_EQ(index["runs"][0]["folder"], "001-pytorch-chat-p99-at-16-c16");
  EXPECT_EQ(index["runs"][0]["load_level"], 16);
  // index.csv: a header and one row per run.
  const std::string csv = slurp(out / "plan" / "index.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 64);
  EXPECT_THAT(csv, HasSubstr("provider,scenario,stage,kind,load_kind,load_level,folder,status,"));
  EXPECT_THAT(csv, HasSubstr("tgi,mixed,peak,sweep,concurrency,200,"));

  // The report renders the plan folder with backend = provider and the scenario.
  const auto rep =
      run_servebench("report " + (out / "plan").string() + " -o " + (out / "r.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = slurp(out / "r.html");
  for (const char* word : {"pytorch", "fastapi", "tgi", "chat", "long", "mixed"})
    EXPECT_THAT(html, HasSubstr(word));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("sim:tgi")));
  fs::remove_all(out);
}

TEST(PlanRun, SecretsReachNoFile) {
  const fs::path out = fresh_dir("secrets");
  ::setenv("SB_PLAN_TEST_KEY", "env-sekrit-42", 1);
  std::ofstream(out / "plan.yaml") << R"(name: secrets
providers:
  - {id: a, sim: instant, api_key: sk-sekrit-123, headers: {X-Api-Key: hdr-sekrit-7}}
  - {id: b, sim: instant, api_key_env: SB_PLAN_TEST_KEY}
defaults: {api: openai-chat}
stages:
  - {kind: baseline, concurrency: 2, num_requests: 4}
)";
  const auto r =
      run_servebench("run " + (out / "plan.yaml").string() + " -o " + (out / "p").string());
  ASSERT_EQ(r.code, 0) << r.out;
  int files = 0;
  for (const auto& f : fs::recursive_directory_iterator(out / "p")) {
    if (!f.is_regular_file()) continue;
    ++files;
    const std::string text = slurp(f.path());
    for (const char* secret : {"sk-sekrit-123", "hdr-sekrit-7", "env-sekrit-42"})
      EXPECT_THAT(text, ::testing::Not(HasSubstr(secret))) << f.path();
  }
  EXPECT_GE(files, 8);
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("sekrit")));
  fs::remove_all(out);
}

TEST(PlanRun, ScaleKeepsTwoRequestsPerClientOfAClosedLoopLevel) {
  const fs::path out = fresh_dir("scale");
  std::ofstream(out / "plan.yaml") << R"(name: scale
providers:
  - {id: a, sim: instant}
defaults: {api: tgi, warmup: 0, cooldown: 0s}
stages:
  - {name: s, kind: sweep, concurrency: [2, 8], requests_per_level: 2}
  - {name: r, kind: sweep, request_rate: [50], num_requests: 40}
)";
  const auto r = run_servebench("run " + (out / "plan.yaml").string() + " --scale 0.25 -o " +
                                (out / "p").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto index = nlohmann::json::parse(slurp(out / "p" / "index.json"));
  ASSERT_EQ(index["runs"].size(), 3u);
  std::vector<long> lines;
  for (const auto& run : index["runs"]) {
    const std::string log = slurp(out / "p" / run["folder"].get<std::string>() / "requests.jsonl");
    lines.push_back(std::count(log.begin(), log.end(), '\n'));
  }
  // c=2: 2 x 2 x 0.25 = 1 -> 4 (two per client, as the unscaled plan had); c=8: 4 -> 16; the
  // open-loop level is scaled as asked: 40 x 0.25 = 10.
  EXPECT_EQ(lines, (std::vector<long>{4, 16, 10})) << r.out;
  fs::remove_all(out);
}

TEST(PlanRun, ProviderWithoutBaseUrlIsAUsageError) {
  const fs::path out = fresh_dir("nourl");
  std::ofstream(out / "plan.yaml")
      << "providers:\n  - id: a\n    model_name: m\nstages:\n  - {kind: baseline}\n";
  const auto r =
      run_servebench("run " + (out / "plan.yaml").string() + " -o " + (out / "p").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr((out / "plan.yaml").string() +
                               ":2:5: providers[0] (a).base_url: missing: give base_url:"));
  EXPECT_FALSE(fs::exists(out / "p" / "index.json"));
  fs::remove_all(out);
}

TEST(PlanRun, FailingLaunchesKeepEarlierRunsAndExitNonZero) {
  const fs::path out = fresh_dir("launch");
  const uint16_t port = free_port();
  std::ofstream(out / "plan.yaml") << fmt::format(R"(name: launches
providers:
  - {{id: first, sim: instant}}
  - id: local
    base_url: http://127.0.0.1:{0}
    launch: {{command: "exec {1} sim --preset instant --port {0}", ready_url: "http://127.0.0.1:{0}/health", ready_timeout: 20s}}
  - id: broken
    base_url: http://127.0.0.1:{0}
    launch: {{command: "echo cannot start; exit 3", ready_url: "http://127.0.0.1:{0}/health"}}
  - id: never
    base_url: http://127.0.0.1:1
    launch: {{command: "sleep 60", ready_url: "http://127.0.0.1:1/health", ready_timeout: 1s, stop_grace: 1s}}
defaults: {{api: tgi}}
stages:
  - {{kind: baseline, concurrency: 2, num_requests: 6}}
)",
                                                  port, SERVEBENCH_BINARY);
  const auto r =
      run_servebench("run " + (out / "plan.yaml").string() + " -o " + (out / "p").string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_THAT(r.out, HasSubstr("provider broken: launch: the command exited with status 3 before"));
  EXPECT_THAT(r.out, HasSubstr("provider never: launch: http://127.0.0.1:1/health did not answer "
                               "2xx within ready_timeout 1s"));
  const auto index = nlohmann::json::parse(slurp(out / "p" / "index.json"));
  ASSERT_EQ(index["runs"].size(), 4u) << index.dump(2);
  EXPECT_EQ(index["runs"][0]["provider"], "first");
  EXPECT_EQ(index["runs"][0]["status"], "ok");
  EXPECT_TRUE(
      fs::exists(out / "p" / index["runs"][0]["folder"].get<std::string>() / "summary.json"));
  EXPECT_EQ(index["runs"][1]["provider"], "local");
  EXPECT_EQ(index["runs"][1]["status"], "ok");
  EXPECT_GT(index["runs"][1]["cold_start_s"].get<double>(), 0);
  EXPECT_EQ(index["runs"][2]["status"], "failed");
  EXPECT_EQ(index["runs"][2]["stage"], "launch");
  EXPECT_THAT(index["runs"][2]["error"].get<std::string>(), HasSubstr("exited with status 3"));
  EXPECT_EQ(index["runs"][3]["status"], "failed");
  EXPECT_THAT(slurp(out / "p" / "broken-launch.log"), HasSubstr("cannot start"));
  // The launched server was stopped after its runs.
  EXPECT_EQ(plan::http_get_status(fmt::format("http://127.0.0.1:{}/health", port), 0.5), 0);
  fs::remove_all(out);
}

TEST(PlanRun, SweepWritesOneFolderPerLevelAndSearchesRates) {
  const fs::path out = fresh_dir("sweep");
  auto r = run_servebench(
      "sweep --sim instant --api tgi --concurrency 1,2,4 -n 12 --output-length 8 -q -o " +
      (out / "s").string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* d : {"c1", "c2", "c4"})
    EXPECT_TRUE(fs::exists(out / "s" / d / "summary.json")) << d;
  auto index = nlohmann::json::parse(slurp(out / "s" / "index.json"));
  ASSERT_EQ(index["runs"].size(), 3u);
  EXPECT_EQ(index["runs"][2]["provider"], "sim:instant");

  r = run_servebench(
      "sweep --sim instant --api tgi --rate-search 5:80 --rate-search-steps 2 -n 10 "
      "--output-length 4 --goodput e2e:2000 -q -o " +
      (out / "r").string());
  ASSERT_EQ(r.code, 0) << r.out;
  index = nlohmann::json::parse(slurp(out / "r" / "index.json"));
  ASSERT_EQ(index["searches"].size(), 1u);
  EXPECT_EQ(index["searches"][0]["kind"], "rate_search");
  EXPECT_EQ(index["searches"][0]["max_stable"], 80);  // the instant preset meets 2 s at 80/s
  EXPECT_EQ(index["searches"][0]["stop_reason"], "high_ok");

  r = run_servebench("sweep --sim instant --concurrency 4,2 -q -o " + (out / "bad").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr("--concurrency 4,2: list the levels in rising order"));
  fs::remove_all(out);
}

}  // namespace
}  // namespace sb
