// --trace replays a production trace against the embedded simulator, as users run it: each
// request is due at its trace time / --trace-speedup, carries the trace's input and output
// lengths, and Mooncake hash ids become prompt prefixes the simulator's prefix cache serves;
// bad lines are skipped and named while the run completes; bad flags are usage errors.
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
#include "run_binary.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("trace-" + name);
}

struct Entry {
  int t_ms, in, out;
  std::vector<int> hash_ids;
  int cached;  // tokens the prefix cache should serve: the leading blocks an earlier request
               // held in full
};

// Written by hand after Mooncake's trace format. The simulator hashes the prompt's text, so
// requests sharing blocks share them whatever their output lengths.
const std::vector<Entry> kEntries = {
    {0, 1200, 16, {10, 11, 12}, 0},
    {100, 300, 8, {20}, 0},
    {200, 1400, 16, {10, 11, 13}, 1024},
    {300, 700, 16, {10, 14}, 512},
    {400, 600, 8, {30, 31}, 0},
    {500, 900, 8, {30, 32}, 512},
    {600, 512, 4, {40}, 0},
    {700, 2000, 16, {50, 51, 52, 53}, 0},
    {800, 1636, 16, {50, 51, 52, 54}, 1536},
    {900, 256, 2, {60}, 0},
    {1000, 1000, 8, {30, 33}, 512},
    {1150, 64, 3, {}, 0},
};

std::string mooncake_line(const Entry& e) {
  std::string ids;
  for (int h : e.hash_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(h);
  return fmt::format(
      "{{\"timestamp\": {}, \"input_length\": {}, \"output_length\": {}, \"hash_ids\": [{}]}}\n",
      e.t_ms, e.in, e.out, ids);
}

std::vector<json> read_requests(const fs::path& dir) {
  std::ifstream in(dir / "requests.jsonl");
  std::vector<json> reqs;
  for (std::string line; std::getline(in, line);) reqs.push_back(json::parse(line));
  std::sort(reqs.begin(), reqs.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  return reqs;
}

TEST(TraceReplayCli, MooncakeTimesLengthsAndSharedPrefixes) {
  const fs::path dir = temp_dir("mooncake");
  std::string text;
  for (size_t i = 0; i < kEntries.size(); ++i) {
    text += mooncake_line(kEntries[i]);
    if (i == 3) text += "{\"input_length\": 5, \"output_length\": 5}\n";  // line 5: no time
  }
  std::ofstream(dir / "trace.jsonl") << text;
  const CmdResult r = run_servebench(fmt::format(
      "prof --sim-engine vllm --sim-gpu H100 --sim-model llama-3.1-8b --sim-time-scale 0.02 "
      "--api llamacpp --ignore-eos --trace {} "
      "--trace-format mooncake --trace-speedup 2 --no-progress -o {}",
      (dir / "trace.jsonl").string(), (dir / "run").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(fmt::format("warning: --trace '{}' line 5: no \"timestamp\" (the arrival "
                                   "time); skipped",
                                   (dir / "trace.jsonl").string())),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Trace:      mooncake"), std::string::npos) << r.out;

  const std::vector<json> reqs = read_requests(dir / "run");
  ASSERT_EQ(reqs.size(), kEntries.size());
  const double t0 = reqs[0]["t_sched_s"].get<double>();
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Entry& e = kEntries[i];
    const json& q = reqs[i];
    EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
    EXPECT_NEAR(q["t_sched_s"].get<double>() - t0, e.t_ms / 2e3, 2e-6) << i;
    EXPECT_EQ(q["input_tokens"], e.in) << i;
    EXPECT_EQ(q["output_tokens"], e.out) << i;
    EXPECT_EQ(q["server_cached_tokens"], e.cached) << i << " " << q.dump();
  }

  std::ifstream in(dir / "run" / "summary.json");
  const json s = json::parse(in);
  const json& t = s["trace"];
  EXPECT_EQ(t["format"], "mooncake");
  EXPECT_EQ(t["entries"], 12);
  EXPECT_EQ(t["lines"], 13);
  EXPECT_EQ(t["skipped_lines"], 1);
  EXPECT_EQ(t["speedup"], 2.0);
  EXPECT_DOUBLE_EQ(t["span_s"].get<double>(), 1.15);
  EXPECT_EQ(t["schedule_lag_ms"]["count"], 12);
  EXPECT_EQ(t["schedule_lag_ms"]["p99"], s["metrics"]["dispatch_delay_ms"]["p99"]);
  EXPECT_TRUE(t["late_share"].is_number());
  EXPECT_EQ(s["load"]["mode"], "open");
  EXPECT_EQ(s["config"]["workload"]["trace"]["format"], "mooncake");
  EXPECT_EQ(s["config"]["load"]["num_requests"], 12);
  fs::remove_all(dir);
}

TEST(TraceReplayCli, EveryFormatRunsAndMinusNLimits) {
  const fs::path dir = temp_dir("formats");
  std::ofstream(dir / "burst.csv")
      << "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
         "5,ChatGPT,40,6,46,Conversation log\n"
         "5.1,GPT-4,80,0,80,API log\n"
         "5.3,ChatGPT,20,4,24,Conversation log\n";
  std::ofstream(dir / "azure.csv") << "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:15:46.6805900,37,4\n"
                                      "2023-11-16 18:15:46.7805900,39,10\n"
                                      "2023-11-16 18:15:46.9305900,12,2\n";
  std::ofstream(dir / "own.jsonl")
      << "{\"t_s\": 0.0, \"input_tokens\": 30, \"output_tokens\": 5}\n"
         "{\"t_s\": 0.05, \"input_tokens\": 31, \"output_tokens\": 6}\n"
         "{\"t_s\": 0.25, \"input_tokens\": 32, \"output_tokens\": 7}\n";
  struct Case {
    const char* file;
    const char* format;
    std::vector<double> t_s;
    std::vector<int> in, out;
  };
  const std::vector<Case> cases = {
      {"burst.csv", "burstgpt", {0, 0.1, 0.3}, {40, 80, 20}, {6, 1, 4}},  // 0 asks for 1
      {"azure.csv", "azure", {0, 0.1, 0.25}, {37, 39, 12}, {4, 10, 2}},
      {"own.jsonl", "jsonl", {0, 0.05, 0.25}, {30, 31, 32}, {5, 6, 7}},
  };
  for (const Case& c : cases) {
    const fs::path out = dir / c.format;
    const CmdResult r = run_servebench(fmt::format(
        "prof --sim instant --api openai --ignore-eos --trace {} --trace-format {} --no-progress "
        "--quiet -o {}",
        (dir / c.file).string(), c.format, out.string()));
    ASSERT_EQ(r.code, 0) << c.format << ": " << r.out;
    const std::vector<json> reqs = read_requests(out);
    ASSERT_EQ(reqs.size(), 3u) << c.format;
    const double t0 = reqs[0]["t_sched_s"].get<double>();
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(reqs[i]["t_sched_s"].get<double>() - t0, c.t_s[i], 2e-6) << c.format << i;
      EXPECT_EQ(reqs[i]["input_tokens"], c.in[i]) << c.format << i;
      EXPECT_EQ(reqs[i]["output_tokens"], c.out[i]) << c.format << i;
    }
  }
  // -n limits the replay to the trace's first entries; a window picks a part of it.
  const CmdResult r = run_servebench(fmt::format(
      "prof --sim instant --api openai --trace {} --trace-format jsonl --trace-window 0.01: -n 1 "
      "--no-progress --quiet -o {}",
      (dir / "own.jsonl").string(), (dir / "limited").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::vector<json> reqs = read_requests(dir / "limited");
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["input_tokens"], 31);
  fs::remove_all(dir);
}

TEST(TraceReplayCli, BadInputIsNamed) {
  const fs::path dir = temp_dir("bad");
  std::ofstream(dir / "t.jsonl")
      << "{\"t_s\": 0.1, \"input_tokens\": 30, \"output_tokens\": 5}\n"
         "{\"t_s\": 0.0, \"input_tokens\": 31, \"output_tokens\": 6}\n"
         "{\"t_s\": \"x\", \"input_tokens\": 31, \"output_tokens\": 6}\n";
  const std::string trace = (dir / "t.jsonl").string();
  // Unsorted and bad lines: warned about by line, the run goes on in time order.
  CmdResult r = run_servebench(fmt::format(
      "prof --sim instant --api openai --trace {} --trace-format jsonl --no-progress --quiet "
      "-o {}",
      trace, (dir / "run").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(fmt::format("--trace '{}' line 3: \"t_s\" is not a number", trace)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("timestamps out of order (line 2 is earlier than the line before it"),
            std::string::npos)
      << r.out;
  const std::vector<json> reqs = read_requests(dir / "run");
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["input_tokens"], 31);  // the earlier entry first
  // Usage errors (exit 2), naming the flag.
  const auto usage = [&](const std::string& flags, const std::string& expect) {
    const CmdResult u =
        run_servebench("prof --sim instant " + flags + " -o " + (dir / "never").string());
    EXPECT_EQ(u.code, 2) << flags << ": " << u.out;
    EXPECT_NE(u.out.find(expect), std::string::npos) << flags << ": " << u.out;
  };
  usage("--trace " + trace + " --trace-format sharegpt",
        "--trace-format 'sharegpt': unknown format; expected mooncake, burstgpt, azure or jsonl");
  usage("--trace " + trace, "--trace needs --trace-format");
  usage("--trace " + trace + " --trace-format jsonl --concurrency 4",
        "--trace and --concurrency exclude each other");
  usage("--trace " + trace + " --trace-format jsonl --request-rate 4",
        "--trace and --request-rate exclude each other");
  usage("--trace " + trace + " --trace-format jsonl --arrival gamma",
        "--trace and --arrival exclude each other");
  usage("--trace " + trace + " --trace-format jsonl --trace-speedup 0", "--trace-speedup 0");
  usage("--trace " + trace + " --trace-format jsonl --trace-window 5:",
        "no entry in --trace-window 5:");
  usage("--trace-speedup 2", "give --trace FILE too");
  usage("--trace " + (dir / "none.jsonl").string() + " --trace-format jsonl",
        "cannot read the file");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::testing
