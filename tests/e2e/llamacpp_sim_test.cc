// --api llamacpp against the simulator's llama.cpp mode (POST /completion): every
// request ok, the output count from tokens_predicted (the last event's), the prompt
// count from tokens_evaluated.
#include <gtest/gtest.h>

#include <cmath>

#include "sim_fixture.h"

namespace sb::testing {
namespace {

using protocol::Api;

void expect_llamacpp_run(bool stream) {
  auto sim = start_sim("tgi", 0.05);
  auto cfg = config_for(*sim, Api::llamacpp, stream);
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 20u);
  const auto trace = trace_by_id(*sim);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << to_string(r.error_class) << ": " << r.error;
    const auto it = trace.find(request_id(r.id));
    ASSERT_NE(it, trace.end()) << r.id;
    const sim::TraceRecord& t = it->second;
    EXPECT_EQ(t.api, "llamacpp_completion");
    EXPECT_EQ(r.output_tokens, t.output_tokens) << r.id;
    EXPECT_EQ(r.output_tokens, 12);
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::usage);
    EXPECT_EQ(r.input_tokens, t.prompt_tokens);
    EXPECT_EQ(r.events, stream ? 12u : 1u);
  }
}

TEST(LlamaCppSim, StreamEveryRequestOkWithTokensPredicted) {
  expect_llamacpp_run(true);
}

TEST(LlamaCppSim, WholeBodyEveryRequestOkWithTokensPredicted) {
  expect_llamacpp_run(false);
}

}  // namespace
}  // namespace sb::testing
