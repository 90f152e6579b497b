// Reasoning models end to end against the simulator (--sim-reasoning-length): on each API with
// a reasoning field (chat delta.reasoning_content, Responses reasoning_text deltas, Anthropic
// thinking blocks) every request's reasoning_tokens is the configured length, TTFO - TTFT
// (reasoning_ms) is the time the simulator took to write those tokens (its trace), and
// `servebench prof` writes them to requests.jsonl and summary.json; `predict` agrees.
// Timing bounds: the suite is in the TIMING filter (CMakeLists.txt).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "../support/timing_slack.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using protocol::Api;

constexpr int64_t kReasoning = 16;  // of 24 output tokens: 8 content tokens after them

// The live simulator's time scale: ~1.5 ms decode steps, so 16 reasoning tokens take ~24 ms, x
// slack() (under sanitizers on a busy CI runner a client's first read was seen 14 ms late): the
// delays the allowance admits grow with slack(), and so does what is measured. Read once, so
// that a test's live and predicted runs convert with the same scale.
double live_time_scale() {
  static const double scale = 0.05 * slack();
  return scale;
}

std::unique_ptr<sim::Server> start_reasoning_sim() {
  sim::SimConfig c = sim::preset_config("tgi");
  c.server.host = "127.0.0.1";
  c.server.port = 0;
  c.server.time_scale = live_time_scale();
  c.text.reasoning_length = kReasoning;
  auto s = std::make_unique<sim::Server>(c);
  s->start();
  return s;
}

void expect_reasoning_run(Api api, bool stream, metrics::TokenSource source) {
  auto sim = start_reasoning_sim();
  auto cfg = config_for(*sim, api, stream);
  cfg.workload.output_tokens = 24;
  cfg.load.concurrency = 2;
  cfg.load.num_requests = 8;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 8u);
  const auto trace = trace_by_id(*sim);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << to_string(r.error_class) << ": " << r.error;
    EXPECT_EQ(r.output_tokens, 24) << r.id;  // reasoning included, as OpenAI counts
    EXPECT_EQ(r.reasoning_tokens, kReasoning) << r.id;
    EXPECT_EQ(r.reasoning_tokens_source, source) << r.id;
    ASSERT_TRUE(r.reasoning_ms()) << r.id;
    if (!stream) {
      EXPECT_EQ(*r.reasoning_ms(), 0.0);  // one body: TTFT == TTFO
      continue;
    }
    EXPECT_EQ(r.events, 24u);
    // The simulator's own figure: token kReasoning + 1 (the first content) written after the
    // first. The client sees the same gap, give or take what delivering each event took.
    const auto it = trace.find(request_id(r.id));
    ASSERT_NE(it, trace.end());
    const auto& tokens = it->second.token_ns;
    ASSERT_EQ(tokens.size(), 24u);
    const double server_ms = static_cast<double>(tokens[kReasoning] - tokens[0]) / 1e6;
    EXPECT_GT(server_ms, 0.0);
    EXPECT_NEAR(*r.reasoning_ms(), server_ms, 5.0 * slack() + 0.25 * server_ms) << r.id;
    EXPECT_GT(*r.ttft_content_ms(), *r.ttft_ms()) << r.id;
  }
}

TEST(ReasoningSim, ChatStreamsReasoningContent) {
  expect_reasoning_run(Api::openai_chat, true, metrics::TokenSource::usage);
}

TEST(ReasoningSim, ChatWholeBody) {
  expect_reasoning_run(Api::openai_chat, false, metrics::TokenSource::usage);
}

TEST(ReasoningSim, ResponsesStreamsReasoningText) {
  expect_reasoning_run(Api::openai_responses, true, metrics::TokenSource::usage);
}

TEST(ReasoningSim, AnthropicStreamsThinking) {
  // Anthropic's usage has no reasoning count: the thinking text's estimate (4 bytes a token).
  expect_reasoning_run(Api::anthropic, true, metrics::TokenSource::estimate);
}

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("reasoning-" + name, /*create=*/false);
}

nlohmann::json summary_of(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  return nlohmann::json::parse(in);
}

TEST(ReasoningSim, ProfWritesReasoningToEveryFile) {
  for (const std::string api : {"openai-chat", "openai-responses", "anthropic"}) {
    const auto dir = temp_dir(api);
    const CmdResult r = run_servebench(
        fmt::format("prof --sim tgi --sim-time-scale {} --sim-reasoning-length 6 --api ",
                    live_time_scale()) +
        api + " -n 6 --concurrency 2 --output-length 10 --no-progress -o " + dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("ttfo"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Reasoning:"), std::string::npos) << r.out;
    std::ifstream in(dir / "requests.jsonl");
    int lines = 0;
    for (std::string l; std::getline(in, l); ++lines) {
      const auto j = nlohmann::json::parse(l);
      EXPECT_EQ(j["output_tokens"], 10) << j;
      EXPECT_EQ(j["reasoning_tokens"], 6) << j;
      EXPECT_EQ(j["reasoning_tokens_source"], api == "anthropic" ? "estimate" : "usage") << j;
      EXPECT_GT(j["reasoning_ms"].get<double>(), 0.0) << j;
    }
    EXPECT_EQ(lines, 6);
    const auto s = summary_of(dir);
    EXPECT_EQ(s["config"]["sim_reasoning_length"], 6);
    EXPECT_EQ(s["metrics"]["reasoning_tokens"]["count"], 6) << s["metrics"];
    EXPECT_EQ(s["metrics"]["reasoning_tokens"]["p50"], 6.0);
    EXPECT_EQ(s["metrics"]["reasoning_ms"]["count"], 6);
    EXPECT_GT(s["metrics"]["ttft_content_ms"]["p50"].get<double>(),
              s["metrics"]["ttft_ms"]["p50"].get<double>());
    fs::remove_all(dir);
  }
}

TEST(ReasoningSim, ProfRefusesAnApiWithoutReasoning) {
  const CmdResult r = run_servebench(
      "prof --sim instant --api tgi --sim-reasoning-length 8 -n 1 --no-progress -o " +
      temp_dir("tgi").string());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("has no reasoning field"), std::string::npos) << r.out;
}

TEST(ReasoningSim, WithoutReasoningSummaryHasNoReasoningMetrics) {
  const auto dir = temp_dir("none");
  const CmdResult r =
      run_servebench("prof --sim instant --api openai-chat -n 3 --no-progress -o " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = summary_of(dir);
  EXPECT_FALSE(s["metrics"].contains("reasoning_tokens"));
  EXPECT_FALSE(s["metrics"].contains("reasoning_ms"));
  EXPECT_EQ(r.out.find("Reasoning:"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(ReasoningSim, PredictAgreesWithLive) {
  // One stream (no batching): reasoning_ms is kReasoning decode steps in both, the live run's
  // in wall time at live_time_scale(), the predicted one in model time.
  const auto live_dir = temp_dir("live"), predict_dir = temp_dir("predict");
  const std::string args = fmt::format(
      "--sim tgi --api openai-chat --sim-reasoning-length {} -n 6 --concurrency 1 "
      "--output-length 24 --no-progress",
      kReasoning);
  const CmdResult live =
      run_servebench(fmt::format("prof --sim-time-scale {} ", live_time_scale()) + args + " -o " +
                     live_dir.string());
  ASSERT_EQ(live.code, 0) << live.out;
  const CmdResult predicted =
      run_servebench("predict prof " + args + " -o " + predict_dir.string());
  ASSERT_EQ(predicted.code, 0) << predicted.out;
  const auto l = summary_of(live_dir)["metrics"], p = summary_of(predict_dir)["metrics"];
  EXPECT_EQ(p["reasoning_tokens"]["p50"], l["reasoning_tokens"]["p50"]);
  const double live_ms = l["reasoning_ms"]["p50"].get<double>();
  const double model_ms = p["reasoning_ms"]["p50"].get<double>() * live_time_scale();
  EXPECT_NEAR(live_ms, model_ms, 5.0 * slack() + 0.25 * model_ms)
      << l["reasoning_ms"] << p["reasoning_ms"];
  fs::remove_all(live_dir);
  fs::remove_all(predict_dir);
}

}  // namespace
}  // namespace sb::testing
