// --api openai-responses and --api anthropic against the simulator's /v1/responses and
// /v1/messages: every request ok, the output count from the API's usage equal to the
// simulator's trace, TTFT defined; Anthropic's version header sent (the simulator refuses a
// request without it) and its 529 classed overloaded; the same through `servebench prof`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using protocol::Api;

void expect_run(Api api, bool stream, std::string_view trace_api) {
  auto sim = start_sim("tgi", 0.05);
  auto cfg = config_for(*sim, api, stream);
  cfg.api_key = "sk-e2e-test";  // anthropic: x-api-key (the simulator ignores keys)
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 20u);
  const auto trace = trace_by_id(*sim);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << to_string(r.error_class) << ": " << r.error;
    const auto it = trace.find(request_id(r.id));
    ASSERT_NE(it, trace.end()) << r.id;
    const sim::TraceRecord& t = it->second;
    EXPECT_EQ(t.api, trace_api);
    EXPECT_EQ(t.stream, stream);
    EXPECT_EQ(r.output_tokens, t.output_tokens) << r.id;
    EXPECT_EQ(r.output_tokens, 12);
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::usage);
    EXPECT_EQ(r.input_tokens, t.prompt_tokens);
    ASSERT_TRUE(r.ttft_ms()) << r.id;
    EXPECT_GT(*r.ttft_ms(), 0.0);
    EXPECT_EQ(r.events, stream ? 12u : 1u);  // one text event per token
  }
}

TEST(EventsApiSim, ResponsesStreamEveryRequestOkWithUsage) {
  expect_run(Api::openai_responses, true, "responses");
}

TEST(EventsApiSim, ResponsesWholeBodyEveryRequestOkWithUsage) {
  expect_run(Api::openai_responses, false, "responses");
}

TEST(EventsApiSim, AnthropicStreamEveryRequestOkWithUsage) {
  expect_run(Api::anthropic, true, "anthropic_messages");
}

TEST(EventsApiSim, AnthropicWholeBodyEveryRequestOkWithUsage) {
  expect_run(Api::anthropic, false, "anthropic_messages");
}

TEST(EventsApiSim, AnthropicOverloadedIs529AndClassOverloaded) {
  auto sim = start_sim("instant");
  auto cfg = config_for(*sim, Api::anthropic);
  cfg.load.num_requests = 6;
  cfg.headers.emplace_back("x-sim-fault", "status=529");
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 6u);
  for (const auto& r : result.records) {
    EXPECT_EQ(r.status, 529);
    EXPECT_EQ(r.error_class, ErrorClass::overloaded) << r.error;
    EXPECT_NE(r.error.find("overloaded_error"), std::string::npos) << r.error;  // the body
  }
}

TEST(EventsApiSim, AnthropicWithoutTheVersionHeaderIsRefused) {
  // A user's -H anthropic-version replaces ours: an empty one is refused, as Anthropic does.
  auto sim = start_sim("instant");
  auto cfg = config_for(*sim, Api::anthropic);
  cfg.load.num_requests = 2;
  cfg.headers.emplace_back("anthropic-version", "2023-06-01");
  auto ok = engine::run_benchmark(cfg, {});
  for (const auto& r : ok.records) EXPECT_TRUE(r.ok()) << r.error;
  // Without the header (the generic API sends none) the simulator says what is missing.
  auto generic = config_for(*sim, Api::generic);
  generic.load.num_requests = 1;
  generic.endpoint = "/v1/messages";
  generic.adapter.generic_template =
      R"({"max_tokens":{{max_tokens}},"messages":[{"role":"user","content":"{{prompt}}"}],)"
      R"("stream":true})";
  generic.adapter.generic_stream_pointer = "/delta/text";
  generic.adapter.generic_body_pointer = "/content/0/text";
  const auto refused = engine::run_benchmark(generic, {});
  ASSERT_EQ(refused.records.size(), 1u);
  EXPECT_EQ(refused.records[0].status, 400);
  EXPECT_NE(refused.records[0].error.find("anthropic-version"), std::string::npos);
}

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("apis-" + name, /*create=*/false);
}

std::vector<nlohmann::json> request_lines(const fs::path& dir) {
  std::ifstream in(dir / "requests.jsonl");
  std::vector<nlohmann::json> v;
  for (std::string l; std::getline(in, l);) v.push_back(nlohmann::json::parse(l));
  return v;
}

TEST(EventsApiSim, ProfWithEachApi) {
  setenv("SB_APIS_TEST_KEY", "sk-ant-never-written-42", 1);
  for (const std::string api : {"openai-responses", "anthropic"}) {
    const auto dir = temp_dir(api);
    const CmdResult r =
        run_servebench("prof --sim instant --api " + api +
                       " -n 12 --concurrency 3 --output-length 8 --api-key-env SB_APIS_TEST_KEY "
                       "--no-progress -o " +
                       dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(r.out.find("sk-ant-never-written-42"), std::string::npos);
    const auto lines = request_lines(dir);
    ASSERT_EQ(lines.size(), 12u) << api;
    for (const auto& j : lines) {
      EXPECT_TRUE(j["ok"].get<bool>()) << j;
      EXPECT_EQ(j["output_tokens"], 8) << j;
      EXPECT_EQ(j["output_tokens_source"], "usage") << j;
      EXPECT_TRUE(j["ttft_ms"].is_number()) << j;
    }
    std::ifstream sf(dir / "summary.json");
    const auto s = nlohmann::json::parse(sf);
    EXPECT_EQ(s["config"]["api"], api);
    EXPECT_EQ(s["run"]["requests"]["ok"], 12);
    EXPECT_EQ(s["metrics"]["ttft_ms"]["count"], 12);
    for (const auto& f : fs::directory_iterator(dir)) {
      std::ifstream in(f.path());
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      EXPECT_EQ(text.find("sk-ant-never-written-42"), std::string::npos) << f.path();
    }
    fs::remove_all(dir);
  }
}

TEST(EventsApiSim, ProfAnthropicOverloadedClass) {
  const auto dir = temp_dir("overloaded");
  const CmdResult r = run_servebench(
      "prof --sim instant --api anthropic -n 4 -H 'x-sim-fault: status=529' --no-progress -o " +
      dir.string());
  EXPECT_EQ(r.code, 0) << r.out;  // measured; failing requests alone do not fail a run
  const auto lines = request_lines(dir);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  for (const auto& j : lines) {
    EXPECT_EQ(j["error_class"], "overloaded") << j;
    EXPECT_EQ(j["status"], 529) << j;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::testing
