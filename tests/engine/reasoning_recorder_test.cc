// Reasoning models through the response recorder, from hand-written samples of each API's
// documentation split at every byte: TTFT at the first reasoning text, TTFO
// (t_first_content) at the first output text, and reasoning_tokens from the usage's reasoning
// count (OpenAI chat completion_tokens_details, Responses output_tokens_details) or else
// estimated from the reasoning text (Anthropic thinking, servers without the count).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/response_recorder.h"

namespace sb::engine {
namespace {

constexpr int64_t kMs = 1'000'000;

// OpenAI chat completions stream (platform.openai.com/docs/api-reference/chat-streaming) as
// vLLM sends a reasoning model's: delta.reasoning_content first, then delta.content, the
// usage chunk (stream_options.include_usage) with completion_tokens_details.
constexpr std::string_view kChat =
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
    "\"o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
    "\"o\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Let me think\"},"
    "\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
    "\"o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"},\"finish_reason\":null}]}"
    "\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
    "\"o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
    "\"o\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":40,"
    "\"total_tokens\":52,\"prompt_tokens_details\":{\"cached_tokens\":0},"
    "\"completion_tokens_details\":{\"reasoning_tokens\":38,\"accepted_prediction_tokens\":0,"
    "\"rejected_prediction_tokens\":0}}}\n\n"
    "data: [DONE]\n\n";

// OpenAI Responses stream of a reasoning model (platform.openai.com/docs/api-reference/
// responses-streaming): a reasoning item's reasoning_text deltas, then the message's text;
// response.completed's usage with output_tokens_details.reasoning_tokens.
constexpr std::string_view kResponses =
    "event: response.created\n"
    "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\","
    "\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n"
    "event: response.output_item.added\n"
    "data: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,"
    "\"item\":{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[],\"content\":[]}}\n\n"
    "event: response.reasoning_text.delta\n"
    "data: {\"type\":\"response.reasoning_text.delta\",\"sequence_number\":2,\"item_id\":"
    "\"rs_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"First, we need\"}\n\n"
    "event: response.reasoning_text.done\n"
    "data: {\"type\":\"response.reasoning_text.done\",\"sequence_number\":3,\"item_id\":"
    "\"rs_1\",\"output_index\":0,\"content_index\":0,\"text\":\"First, we need\"}\n\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\","
    "\"output_index\":1,\"content_index\":0,\"delta\":\"42\"}\n\n"
    "event: response.completed\n"
    "data: {\"type\":\"response.completed\",\"sequence_number\":5,\"response\":{\"id\":\"resp_1\","
    "\"object\":\"response\",\"status\":\"completed\",\"error\":null,\"output\":[],\"usage\":{"
    "\"input_tokens\":10,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":30,"
    "\"output_tokens_details\":{\"reasoning_tokens\":29},\"total_tokens\":40}}}\n\n";

// Anthropic extended thinking stream (docs.anthropic.com, Streaming Messages, "Streaming
// request with extended thinking"): a thinking block, its signature, then the text block.
// usage.output_tokens counts the thinking; there is no separate count.
constexpr std::string_view kAnthropic =
    "event: message_start\n"
    "data: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_1\", \"type\": \"message\", "
    "\"role\": \"assistant\", \"content\": [], \"model\": \"claude\", \"stop_reason\": null, "
    "\"stop_sequence\": null, \"usage\": {\"input_tokens\": 20, \"output_tokens\": 1}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": "
    "\"thinking\", \"thinking\": \"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": "
    "\"thinking_delta\", \"thinking\": \"Let me solve this step by step\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": "
    "\"signature_delta\", \"signature\": \"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\": \"content_block_stop\", \"index\": 0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\": \"content_block_start\", \"index\": 1, \"content_block\": {\"type\": "
    "\"text\", \"text\": \"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": {\"type\": "
    "\"text_delta\", \"text\": \"27 * 453 = 12,231\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\": \"content_block_stop\", \"index\": 1}\n\n"
    "event: message_delta\n"
    "data: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", "
    "\"stop_sequence\": null}, \"usage\": {\"output_tokens\": 14}}\n\n"
    "event: message_stop\n"
    "data: {\"type\": \"message_stop\"}\n\n";

struct Fixture {
  explicit Fixture(protocol::Api api, bool stream = true) {
    protocol::AdapterConfig c;
    c.api = api;
    c.stream = stream;
    adapter = protocol::make_adapter(c);
    recorder = std::make_unique<ResponseRecorder>(*adapter, stream, 1 << 20);
    record.t_sched_ns = 0;
    record.t_send_ns = 0;
    recorder->begin(record);
    record.status = 200;
  }
  // `body` in two pieces cut at `cut`, arriving at 10 and 20 ms; finished at 21 ms.
  const metrics::RequestRecord& run(std::string_view body, size_t cut) {
    if (recorder->on_body(body.substr(0, cut), 10 * kMs))
      recorder->on_body(body.substr(cut), 20 * kMs);
    recorder->finish(21 * kMs, true);
    return record;
  }
  std::unique_ptr<protocol::Adapter> adapter;
  std::unique_ptr<ResponseRecorder> recorder;
  metrics::RequestRecord record;
};

// Where the SSE event holding `marker` ends (its blank line included): a cut at or after it
// delivers that event with the first piece (10 ms), a cut before it with the second (20 ms).
size_t event_end(std::string_view stream, std::string_view marker) {
  const size_t at = stream.find(marker);
  EXPECT_NE(at, std::string_view::npos) << marker;
  return stream.find("\n\n", at) + 2;
}

void expect_split_outcome(protocol::Api api, std::string_view stream,
                          std::string_view first_reasoning, std::string_view first_content,
                          int64_t output_tokens, int64_t reasoning_tokens,
                          metrics::TokenSource reasoning_source) {
  const size_t reasoning_end = event_end(stream, first_reasoning);
  const size_t content_end = event_end(stream, first_content);
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    Fixture f(api);
    const auto& r = f.run(stream, cut);
    ASSERT_TRUE(r.ok()) << "cut " << cut << ": " << r.error;
    EXPECT_EQ(r.output_tokens, output_tokens) << cut;  // includes the reasoning tokens
    EXPECT_EQ(r.reasoning_tokens, reasoning_tokens) << cut;
    EXPECT_EQ(r.reasoning_tokens_source, reasoning_source) << cut;
    ASSERT_NE(r.t_first_ns, metrics::kNoTime) << cut;
    ASSERT_NE(r.t_first_content_ns, metrics::kNoTime) << cut;
    ASSERT_TRUE(r.reasoning_ms()) << cut;
    // The reasoning in the first piece and the output in the second: TTFO 10 ms after TTFT.
    const bool apart = cut >= reasoning_end && cut < content_end;
    EXPECT_EQ(*r.reasoning_ms(), apart ? 10.0 : 0.0) << cut;
    EXPECT_EQ(*r.ttft_ms(), cut >= reasoning_end ? 10.0 : 20.0) << cut;
    EXPECT_EQ(*r.ttft_content_ms(), *r.ttft_ms() + *r.reasoning_ms()) << cut;
  }
}

TEST(ReasoningRecorder, ChatUsageDetailsAtEverySplit) {
  expect_split_outcome(protocol::Api::openai_chat, kChat, "reasoning_content",
                       "{\"content\":\"Paris", 40, 38, metrics::TokenSource::usage);
}

TEST(ReasoningRecorder, ResponsesReasoningTextAtEverySplit) {
  expect_split_outcome(protocol::Api::openai_responses, kResponses, "\"delta\":\"First",
                       "\"delta\":\"42\"", 30, 29, metrics::TokenSource::usage);
}

TEST(ReasoningRecorder, AnthropicThinkingEstimatedAtEverySplit) {
  // "Let me solve this step by step": 30 bytes -> 8 tokens (bytes / 4, rounded up).
  expect_split_outcome(protocol::Api::anthropic, kAnthropic, "\"thinking_delta\"", "\"text_delta\"",
                       14, 8, metrics::TokenSource::estimate);
}

TEST(ReasoningRecorder, ChatWithoutTheCountIsEstimated) {
  // vLLM sends no completion_tokens_details: the reasoning text's estimate ("Let me think":
  // 12 bytes, 3 tokens); the output count stays the usage's.
  std::string stream(kChat);
  const size_t at = stream.find(",\"completion_tokens_details\"");
  stream.erase(at, stream.find("}}}", at) + 1 - at);
  Fixture f(protocol::Api::openai_chat);
  const auto& r = f.run(stream, stream.size());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.output_tokens, 40);
  EXPECT_EQ(r.reasoning_tokens, 3);
  EXPECT_EQ(r.reasoning_tokens_source, metrics::TokenSource::estimate);
}

TEST(ReasoningRecorder, NoReasoningIsNull) {
  // OpenAI reports reasoning_tokens 0 for every non-reasoning request: no reasoning, null.
  constexpr std::string_view kPlain =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}"
      "\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,"
      "\"total_tokens\":4,\"completion_tokens_details\":{\"reasoning_tokens\":0}}}\n\n"
      "data: [DONE]\n\n";
  Fixture f(protocol::Api::openai_chat);
  const auto& r = f.run(kPlain, 7);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.reasoning_tokens, -1);
  EXPECT_EQ(r.reasoning_tokens_source, metrics::TokenSource::none);
  EXPECT_FALSE(r.reasoning_ms());
}

TEST(ReasoningRecorder, HiddenReasoningCountsFromUsageAlone) {
  // OpenAI's o-series stream no reasoning text but count it: reasoning_tokens from the usage,
  // reasoning_ms 0 (TTFT and TTFO are the same first output event).
  constexpr std::string_view kHidden =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Yes\"},\"finish_reason\":null}"
      "]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":65,"
      "\"total_tokens\":68,\"completion_tokens_details\":{\"reasoning_tokens\":64}}}\n\n"
      "data: [DONE]\n\n";
  Fixture f(protocol::Api::openai_chat);
  const auto& r = f.run(kHidden, 0);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.reasoning_tokens, 64);
  EXPECT_EQ(r.reasoning_tokens_source, metrics::TokenSource::usage);
  EXPECT_EQ(r.reasoning_ms(), 0.0);
}

TEST(ReasoningRecorder, WholeBodiesOfEachApi) {
  // Non-streamed: one event carries both, so TTFT == TTFO; the counts as streamed.
  constexpr std::string_view kChatBody =
      "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
      "\"message\":{\"role\":\"assistant\",\"reasoning_content\":\"Let me think\",\"content\":"
      "\"Paris\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,"
      "\"completion_tokens\":40,\"total_tokens\":52,\"completion_tokens_details\":{"
      "\"reasoning_tokens\":38}}}";
  constexpr std::string_view kResponsesBody =
      "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"error\":null,"
      "\"output\":[{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[],\"content\":[{\"type\":"
      "\"reasoning_text\",\"text\":\"First, we need\"}]},{\"id\":\"msg_1\",\"type\":\"message\","
      "\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","
      "\"annotations\":[],\"text\":\"42\"}]}],\"usage\":{\"input_tokens\":10,\"output_tokens\":30,"
      "\"output_tokens_details\":{\"reasoning_tokens\":29},\"total_tokens\":40}}";
  constexpr std::string_view kAnthropicBody =
      "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
      "\"thinking\",\"thinking\":\"Let me solve this step by step\",\"signature\":\"EqQB\"},"
      "{\"type\":\"text\",\"text\":\"12,231\"}],\"stop_reason\":\"end_turn\",\"usage\":{"
      "\"input_tokens\":20,\"output_tokens\":14}}";
  struct Case {
    protocol::Api api;
    std::string_view body;
    int64_t reasoning;
    metrics::TokenSource source;
  };
  for (const Case& c :
       {Case{protocol::Api::openai_chat, kChatBody, 38, metrics::TokenSource::usage},
        Case{protocol::Api::openai_responses, kResponsesBody, 29, metrics::TokenSource::usage},
        Case{protocol::Api::anthropic, kAnthropicBody, 8, metrics::TokenSource::estimate}}) {
    for (size_t cut = 0; cut <= c.body.size(); ++cut) {
      Fixture f(c.api, /*stream=*/false);
      const auto& r = f.run(c.body, cut);
      ASSERT_TRUE(r.ok()) << protocol::to_string(c.api) << " cut " << cut << ": " << r.error;
      EXPECT_EQ(r.reasoning_tokens, c.reasoning) << protocol::to_string(c.api);
      EXPECT_EQ(r.reasoning_tokens_source, c.source) << protocol::to_string(c.api);
      EXPECT_EQ(r.reasoning_ms(), 0.0) << protocol::to_string(c.api);
    }
  }
}

}  // namespace
}  // namespace sb::engine
