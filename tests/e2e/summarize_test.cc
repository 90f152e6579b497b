// `servebench summarize DIR` as users run it: after a kill -9 the summary is
// rebuilt from requests.jsonl alone and counts every flushed line; a cut last
// line is skipped; with the old summary.json at hand the rebuilt numbers equal
// the run's own.
#include <gtest/gtest.h>

#include "../support/temp_dir.h"
#include "../support/text_file.h"
#include "run_binary.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using sb::testing::CmdResult;
CmdResult run(const std::string& args) {
  return sb::testing::run_servebench(args);
}

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("summarize-" + name);
}

using sb::testing::slurp;

// The whole ('\n'-terminated) lines of a file.
std::vector<std::string> whole_lines(const std::string& text) {
  std::vector<std::string> v;
  size_t from = 0;
  for (size_t eol; (eol = text.find('\n', from)) != std::string::npos; from = eol + 1)
    v.push_back(text.substr(from, eol - from));
  return v;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

TEST(Summarize, RecoversEveryFlushedRequestAfterKill9) {
  const auto dir = temp_dir("kill9");
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = dir.string();
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    execl(SERVEBENCH_BINARY, SERVEBENCH_BINARY, "prof", "--sim", "instant", "--sim-time-scale",
          "20", "--duration", "60s", "--concurrency", "4", "--output-length", "10", "--warmup", "2",
          "--no-progress", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill once a few seconds' worth of lines are on disk (a sanitized build starts
  // slower than 2.5 s), or after 20 s at most.
  for (int i = 0; i < 200; ++i) {
    usleep(100'000);
    if (i >= 25 && whole_lines(slurp(dir / "requests.jsonl")).size() > 8) break;
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_FALSE(fs::exists(dir / "summary.json")) << "a killed run writes no summary";

  const std::string jsonl = slurp(dir / "requests.jsonl");
  const auto lines = whole_lines(jsonl);
  // ~200 ms requests, 4 at a time, flushed every second: a few dozen lines by now.
  ASSERT_GT(lines.size(), 4u) << "nothing was flushed in 20 s";
  int64_t ok = 0, warm = 0, measured = 0;
  for (const auto& l : lines) {
    const json j = json::parse(l);
    if (j["warmup"].get<bool>()) {
      ++warm;
    } else {
      ++measured;
      ok += j["ok"].get<bool>();
    }
  }

  const CmdResult r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = read_json(dir / "summary.json");
  EXPECT_EQ(s["schema"], "servebench.summary/1");
  EXPECT_EQ(s["run"]["requests"]["total"].get<int64_t>(), measured);
  EXPECT_EQ(s["run"]["requests"]["ok"].get<int64_t>(), ok);
  EXPECT_EQ(s["run"]["requests"]["warmup"].get<int64_t>(), warm);
  EXPECT_EQ(s["run"]["interrupted"], true);
  EXPECT_EQ(s["metrics"]["ttft_ms"]["count"].get<int64_t>(), ok);
  EXPECT_EQ(s["metrics"]["itl_ms"]["count"].get<int64_t>(), ok * 9);
  EXPECT_GT(s["throughput"]["requests_per_s"].get<double>(), 0);
  EXPECT_EQ(s["config"]["summarized_from"], "requests.jsonl");
  EXPECT_EQ(whole_lines(slurp(dir / "summary.csv")).size(), 2u);
  fs::remove_all(dir);
}

TEST(Summarize, SkipsACutLastLineAndRejectsACorruptMiddleLine) {
  const auto dir = temp_dir("cut");
  const CmdResult prof =
      run("prof --sim instant -n 6 --concurrency 2 --output-length 5 --no-progress -q -o " +
          dir.string());
  ASSERT_EQ(prof.code, 0) << prof.out;
  fs::remove(dir / "summary.json");
  const std::string jsonl = slurp(dir / "requests.jsonl");
  const auto lines = whole_lines(jsonl);
  ASSERT_EQ(lines.size(), 6u);
  {
    std::ofstream out(dir / "requests.jsonl", std::ios::binary | std::ios::app);
    out << lines[0].substr(0, lines[0].size() / 2);  // a 7th line, cut while being written
  }
  CmdResult r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("cut last line"), std::string::npos) << r.out;
  EXPECT_EQ(read_json(dir / "summary.json")["run"]["requests"]["total"], 6);

  {
    std::ofstream out(dir / "requests.jsonl", std::ios::binary | std::ios::trunc);
    out << lines[0] << "\n{\"id\": oops\n" << lines[1] << "\n";
  }
  r = run("summarize -q " + dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("line 2"), std::string::npos) << r.out;

  r = run("summarize -q " + (dir / "no-such-folder").string());
  EXPECT_EQ(r.code, 2) << r.out;
  fs::remove_all(dir);
}

TEST(Summarize, WithTheOldSummaryRebuildsTheSameNumbers) {
  const auto dir = temp_dir("same");
  const CmdResult prof =
      run("prof --sim instant --request-rate 200 --arrival poisson -n 40 --output-length 6 "
          "--goodput ttft:50 --goodput tpot:5 --bucket-interval 100 --no-progress -q -o " +
          dir.string());
  ASSERT_EQ(prof.code, 0) << prof.out;
  const json before = read_json(dir / "summary.json");
  const std::string csv_before = slurp(dir / "summary.csv");
  const CmdResult r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json after = read_json(dir / "summary.json");
  for (const char* key :
       {"metrics", "throughput", "goodput", "load", "errors", "token_sources", "timeseries"})
    EXPECT_EQ(after[key], before[key]) << key;
  EXPECT_EQ(after["run"]["requests"], before["run"]["requests"]);
  EXPECT_EQ(after["run"]["started_at"], before["run"]["started_at"]);
  EXPECT_EQ(after["run"]["interrupted"], false);
  EXPECT_EQ(after["config"]["api"], before["config"]["api"]);
  EXPECT_EQ(slurp(dir / "summary.csv"), csv_before);

  // --goodput re-evaluates the SLO over the same requests.
  const CmdResult strict = run("summarize -q --goodput e2e:0.001 " + dir.string());
  ASSERT_EQ(strict.code, 0) << strict.out;
  EXPECT_EQ(read_json(dir / "summary.json")["goodput"]["good"], 0);
  fs::remove_all(dir);
}

// The summary's `telemetry` block does not depend on the requests: summarize keeps the run's
// own, and rebuilds the series statistics from telemetry.jsonl when summary.json is gone.
TEST(Summarize, KeepsTheTelemetryBlock) {
  const auto dir = temp_dir("telemetry");
  const CmdResult prof =
      run("prof --sim instant -n 20 --concurrency 2 --output-length 5 --telemetry-interval 100 "
          "--no-progress -q -o " +
          dir.string());
  ASSERT_EQ(prof.code, 0) << prof.out;
  const json before = read_json(dir / "summary.json");
  ASSERT_TRUE(before["telemetry"].is_object()) << before.dump();
  ASSERT_FALSE(before["telemetry"]["series"].empty());
  ASSERT_TRUE(fs::exists(dir / "telemetry.jsonl"));

  CmdResult r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(read_json(dir / "summary.json")["telemetry"], before["telemetry"]);

  // Without summary.json: the statistics of every series, from telemetry.jsonl.
  fs::remove(dir / "summary.json");
  r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json rebuilt = read_json(dir / "summary.json")["telemetry"];
  ASSERT_TRUE(rebuilt.is_object()) << r.out;
  EXPECT_EQ(rebuilt["rebuilt_from"], "telemetry.jsonl");
  std::map<std::string, json> by_key;
  for (const auto& series : rebuilt["series"]) by_key[series["key"].get<std::string>()] = series;
  ASSERT_EQ(by_key.size(), before["telemetry"]["series"].size());
  for (const auto& series : before["telemetry"]["series"]) {
    const std::string key = series["key"].get<std::string>();
    ASSERT_TRUE(by_key.count(key)) << key;
    for (const char* field : {"source", "name", "labels", "count"})
      EXPECT_EQ(by_key[key][field], series[field]) << key << " " << field;
    for (const char* field : {"mean", "p50", "max"}) {
      if (series[field].is_null()) {
        EXPECT_TRUE(by_key[key][field].is_null()) << key << " " << field;
      } else {
        EXPECT_NEAR(by_key[key][field].get<double>(), series[field].get<double>(),
                    1e-9 * (1 + std::abs(series[field].get<double>())))
            << key << " " << field;
      }
    }
  }

  // Neither file: no block.
  fs::remove(dir / "summary.json");
  fs::remove(dir / "telemetry.jsonl");
  r = run("summarize -q " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(read_json(dir / "summary.json").contains("telemetry"));
  fs::remove_all(dir);
}

}  // namespace
