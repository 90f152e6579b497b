// The simulator's per-token path allocates nothing once a stream's buffers have
// grown: Formatter::append_token_event into a kept buffer, for every streaming API
// (the server writes one such event per token per stream). Counts this test
// binary's heap allocations through a replaced global operator new.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "../support/allocation_counter.h"
#include "sim/api.h"
#include "sim/config.h"

namespace sb::sim {
namespace {

class FormatterAllocations : public ::testing::TestWithParam<std::pair<ApiKind, const char*>> {};

TEST_P(FormatterAllocations, TokenEventsAllocateNothingOnceTheBufferHasGrown) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  const auto [api, body] = GetParam();
  const auto parsed = parse_generate(api, body, preset_config("instant"));
  ASSERT_TRUE(std::holds_alternative<GenRequest>(parsed));
  const GenRequest& g = std::get<GenRequest>(parsed);
  ASSERT_EQ(g.output_tokens, 200);
  Formatter f(g, "cmpl-0123456789abcdef", 1700000000);
  std::string event;
  f.append_token_event(event, 1, false);  // grows the buffer
  event.reserve(event.size() * 2);
  const uint64_t before = testing::allocations();
  size_t bytes = 0;
  for (int64_t i = 2; i < 200; ++i) {  // every token but the last (which sums up once)
    event.clear();
    f.append_token_event(event, i, false);
    bytes += event.size();
  }
  EXPECT_EQ(testing::allocations() - before, 0u);
  EXPECT_GT(bytes, 198u * 50);
  // The appended form is the returned form.
  Formatter again(g, "cmpl-0123456789abcdef", 1700000000);
  for (int64_t i = 1; i < 200; ++i) again.token_event(i, false);
  event.clear();
  f.append_token_event(event, 200, true);
  EXPECT_EQ(event, again.token_event(200, true));
}

INSTANTIATE_TEST_SUITE_P(
    Apis, FormatterAllocations,
    ::testing::Values(
        std::pair{ApiKind::tgi_stream,
                  R"({"inputs":"hello","parameters":{"max_new_tokens":200,"details":true}})"},
        std::pair{ApiKind::completions,
                  R"({"model":"m","prompt":"hello","max_tokens":200,"stream":true})"},
        std::pair{ApiKind::chat, R"({"model":"m","messages":[{"role":"user","content":"hello"}],)"
                                 R"("max_tokens":200,"stream":true})"}));

}  // namespace
}  // namespace sb::sim
