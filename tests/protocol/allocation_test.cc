// The decode hot path allocates nothing per event once an adapter's buffers
// have grown (per-event work must stay cheap). Counts this test
// binary's heap allocations through a replaced global operator new.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/allocation_counter.h"
#include "protocol/adapter.h"
#include "protocol/event_memo.h"

namespace sb::protocol {
namespace {

uint64_t allocations_for(Adapter& adapter, const std::vector<std::string>& events) {
  if (!SB_COUNT_ALLOCATIONS) {
    ADD_FAILURE() << "unreachable: tests skip when allocations are not counted";
    return 0;
  }
  for (const auto& e : events) adapter.decode_event(e);  // warm up
  const uint64_t before = testing::allocations();
  uint64_t chars = 0;
  for (int round = 0; round < 50; ++round) {
    for (const auto& e : events) chars += adapter.decode_event(e).content_chars;
  }
  EXPECT_GT(chars, 0u);
  return testing::allocations() - before;
}

TEST(DecodeAllocations, OpenAiChatChunksAllocateNothing) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  AdapterConfig config;
  config.api = Api::openai_chat;
  auto adapter = make_adapter(config);
  const std::vector<std::string> events = {
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})",
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" hello \"x\""},"logprobs":null,"finish_reason":null}]})",
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})",
      "[DONE]"};
  EXPECT_EQ(allocations_for(*adapter, events), 0u);
}

TEST(DecodeAllocations, TgiEventsAllocateNothing) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  AdapterConfig config;
  config.api = Api::tgi;
  auto adapter = make_adapter(config);
  const std::vector<std::string> events = {
      R"({"index":1,"token":{"id":415,"text":" The","logprob":-0.4,"special":false},"generated_text":null,"details":null})",
      R"({"index":2,"token":{"id":2,"text":"","logprob":-0.1,"special":true},"generated_text":" The","details":{"finish_reason":"eos_token","generated_tokens":2,"seed":null,"input_length":4}})"};
  EXPECT_EQ(allocations_for(*adapter, events), 0u);
}

TEST(DecodeAllocations, OpenAiCompletionChunksAllocateNothing) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  AdapterConfig config;
  config.api = Api::openai;
  auto adapter = make_adapter(config);
  const std::vector<std::string> events = {
      R"({"id":"cmpl","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" San","logprobs":null,"finish_reason":null,"stop_reason":null}]})"};
  EXPECT_EQ(allocations_for(*adapter, events), 0u);
}

// The recorder's memo (event_memo.h): once its block has grown, learning a new response's
// first chunk and matching the rest allocate nothing.
TEST(DecodeAllocations, EventMemoHitsAndRelearningAllocateNothing) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  AdapterConfig config;
  config.api = Api::openai;
  auto adapter = make_adapter(config);
  const auto chunk = [](std::string_view text) {
    return R"({"id":"cmpl","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":")" +
           std::string(text) + R"(","logprobs":null,"finish_reason":null,"stop_reason":null}]})";
  };
  const std::vector<std::string> events = {chunk(" San"), chunk(" Francisco"), chunk(" is")};
  EventMemo memo;
  const auto response = [&] {
    uint64_t hits = 0;
    memo.reset();
    memo.learn(events[0], adapter->decode_event(events[0]));
    for (size_t i = 1; i < events.size(); ++i) hits += memo.match(events[i]).has_value();
    return hits;
  };
  response();  // warm up
  const uint64_t before = testing::allocations();
  uint64_t hits = 0;
  for (int round = 0; round < 50; ++round) hits += response();
  EXPECT_EQ(testing::allocations() - before, 0u);
  EXPECT_EQ(hits, 100u);
}

}  // namespace
}  // namespace sb::protocol
