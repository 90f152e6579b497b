// Priority classes (--priority-mix) against the simulator: an open loop well above the tgi
// preset's capacity fills its queue, and the simulator admits the high class ahead of the
// normal one, so high's TTFT stays low while normal's grows with the queue. Each request's
// class is in requests.jsonl, each class's figures in summary.json and on the terminal; the
// predictor (virtual time, the same scheduler) shows the same order; bad mixes exit 2.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "../support/timing_slack.h"
#include "run_binary.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRequests = 240;

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("priority-" + name, /*create=*/false);
}

// The predictor's load: tgi (Llama-2-7B on an A10G, TGI 1.x: batches of 32, 96 more
// waiting) serves ~14 requests a second of 64 output tokens and gets 40; vLLM on the same GPU
// (batches of ~130 by its KV memory, an unbounded queue) serves ~50 and gets 150. Either way
// the queue fills within the first seconds and stays long.
std::string predict_flags(const std::string& api) {
  return fmt::format(
      "{} --api {} --request-rate {} --arrival constant -n {} --seed 3 --input-length 64 "
      "--output-length 64 --ignore-eos --priority-mix high:0.2,normal:0.8 --goodput ttft:2000 "
      "--no-progress",
      api == "tgi" ? "--sim tgi" : "--sim-engine vllm", api, api == "tgi" ? 40 : 150, kRequests);
}

struct ClassFigures {
  int64_t requests = 0, ok = 0;
  double ttft_p99 = 0, ttft_p50 = 0;
  std::optional<double> goodput_fraction;
};

std::map<std::string, ClassFigures> classes_of(const json& summary) {
  std::map<std::string, ClassFigures> out;
  for (const json& c : summary.at("priority_classes").at("classes")) {
    ClassFigures f;
    f.requests = c.at("requests").get<int64_t>();
    f.ok = c.at("ok").get<int64_t>();
    f.ttft_p50 = c.at("ttft_ms").at("p50").get<double>();
    f.ttft_p99 = c.at("ttft_ms").at("p99").get<double>();
    if (!c.at("goodput").at("fraction").is_null())
      f.goodput_fraction = c.at("goodput").at("fraction").get<double>();
    out[c.at("name").get<std::string>()] = f;
  }
  return out;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

void expect_high_served_first(const json& summary, double factor) {
  const auto cls = classes_of(summary);
  ASSERT_EQ(cls.size(), 2u) << summary.at("priority_classes");
  const ClassFigures& high = cls.at("high");
  const ClassFigures& normal = cls.at("normal");
  EXPECT_EQ(high.requests + normal.requests, kRequests);
  // 20% of 240 = 48 expected (binomial sd 6.2): 5 sd either side.
  EXPECT_GT(high.requests, 17);
  EXPECT_LT(high.requests, 79);
  ASSERT_GT(high.ok, 10) << summary.at("priority_classes");
  ASSERT_GT(normal.ok, 10) << summary.at("priority_classes");
  EXPECT_LE(high.ttft_p99 * factor, normal.ttft_p99) << summary.at("priority_classes");
  ASSERT_TRUE(high.goodput_fraction && normal.goodput_fraction);
  EXPECT_GT(*high.goodput_fraction, *normal.goodput_fraction) << summary.at("priority_classes");
  const json& fairness = summary.at("priority_classes").at("fairness");
  ASSERT_TRUE(fairness.is_number()) << summary.at("priority_classes");
  EXPECT_NEAR(fairness.get<double>(), *normal.goodput_fraction / *high.goodput_fraction, 1e-9);
}

TEST(PrioritySim, HighClassIsAdmittedFirstAtSaturation) {
  const fs::path dir = temp_dir("live");
  // Model time runs 5x faster than the wall clock (0.2; 0.8 under sanitizers): the 6 model
  // seconds of arrivals and ~17 of service take ~4 wall seconds. Arrivals are in wall time,
  // so the rate (40 a model second, as predict_flags) and the SLO are scaled with it.
  const double scale = 0.2 * sanitizer_slack();
  const std::string flags = fmt::format(
      "--sim tgi --sim-time-scale {} --api tgi --request-rate {} --arrival constant "
      "-n {} --seed 3 --input-length 64 --output-length 64 --ignore-eos "
      "--priority-mix high:0.2,normal:0.8 --goodput ttft:{} --no-progress",
      scale, 40 / scale, kRequests, 2000 * scale);
  const CmdResult r = run_servebench("prof " + flags + " -o " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  // One terminal line per class.
  EXPECT_NE(r.out.find("Priority:   fairness"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  high       priority 0:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  normal     priority 1:"), std::string::npos) << r.out;

  // requests.jsonl: every request names its class, drawn from the seed alone (the same ids
  // get the same classes in the predictor's run below).
  std::map<uint64_t, std::string> class_of;
  std::ifstream in(dir / "requests.jsonl");
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    const std::string c = j.at("priority_class").get<std::string>();
    EXPECT_EQ(j.at("priority").get<int64_t>(), c == "high" ? 0 : 1) << j;
    class_of[j.at("id").get<uint64_t>()] = c;
  }
  EXPECT_EQ(class_of.size(), static_cast<size_t>(kRequests));

  const json summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary.at("config").at("load").at("priority_mix").size(), 2u);
  const auto cls = classes_of(summary);
  std::fprintf(stderr,
               "live tgi x%g: high p99 TTFT %.1f ms (p50 %.1f), normal p99 %.1f ms (p50 %.1f)\n",
               scale, cls.at("high").ttft_p99, cls.at("high").ttft_p50, cls.at("normal").ttft_p99,
               cls.at("normal").ttft_p50);
  expect_high_served_first(summary, 2.0);
  fs::remove_all(dir);
}

// The predictor drives the same scheduler in virtual time: the same order, exactly repeatable.
TEST(PriorityCli, PredictAdmitsTheHighClassFirstOnTgiAndVllm) {
  for (const std::string api : {"tgi", "openai"}) {
    const fs::path dir = temp_dir("predict-" + api);
    const CmdResult r =
        run_servebench("predict prof " + predict_flags(api) + " -q -o " + dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    expect_high_served_first(read_json(dir / "summary.json"), 2.0);
    fs::remove_all(dir);
  }
}

TEST(PriorityCli, BadMixesAndApisWithoutAPriorityAreUsageErrors) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"--api tgi --priority-mix high:abc,normal:0.8", "--priority-mix 'high:abc,normal:0.8'"},
      {"--api tgi --priority-mix high:0.2,normal:0.7", "the shares sum to 0.9, not 1"},
      {"--api openai --priority-mix normal:0.8,high:0.2", "most urgent first"},
      {"--api llamacpp --priority-mix high:0.2,normal:0.8",
       "--priority-mix: --api llamacpp has no request priority"},
      {"--api anthropic --priority-mix high:0.2,normal:0.8",
       "--priority-mix: --api anthropic has no request priority"},
  };
  for (const auto& c : cases) {
    const CmdResult r = run_servebench(fmt::format("prof --sim instant {} -n 1 --no-progress -o {}",
                                                   c.args, temp_dir("bad").string()));
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << ": " << r.out;
  }
  fs::remove_all(temp_dir("bad"));
}

}  // namespace
}  // namespace sb::testing
