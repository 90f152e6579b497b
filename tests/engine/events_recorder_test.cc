// The response recorder on the two APIs of named SSE events (--api openai-responses,
// --api anthropic): hand-written streams (OpenAI's Responses streaming reference,
// Anthropic's Streaming Messages page) give the same record wherever their bytes are split:
// text, reasoning, the counts of the last events, in-stream errors, a stream cut short.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/response_recorder.h"

namespace sb::engine {
namespace {

constexpr int64_t kMs = 1'000'000;

constexpr std::string_view kResponses =
    "event: response.created\n"
    "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_9\","
    "\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n"
    "event: response.reasoning_summary_text.delta\n"
    "data: {\"type\":\"response.reasoning_summary_text.delta\",\"sequence_number\":1,"
    "\"item_id\":\"rs_9\",\"output_index\":0,\"summary_index\":0,\"delta\":\"plan\"}\n\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"msg_9\","
    "\"output_index\":1,\"content_index\":0,\"delta\":\"Bonjour\"}\n\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":3,\"item_id\":\"msg_9\","
    "\"output_index\":1,\"content_index\":0,\"delta\":\" \\u00e0 tous\"}\n\n"
    "event: response.output_text.done\n"
    "data: {\"type\":\"response.output_text.done\",\"sequence_number\":4,\"item_id\":\"msg_9\","
    "\"output_index\":1,\"content_index\":0,\"text\":\"Bonjour \\u00e0 tous\"}\n\n"
    "event: response.completed\n"
    "data: {\"type\":\"response.completed\",\"sequence_number\":5,\"response\":{\"id\":\"resp_9\","
    "\"object\":\"response\",\"status\":\"completed\",\"error\":null,\"output\":[],\"usage\":{"
    "\"input_tokens\":21,\"input_tokens_details\":{\"cached_tokens\":16},\"output_tokens\":7,"
    "\"output_tokens_details\":{\"reasoning_tokens\":2},\"total_tokens\":28}}}\n\n";

constexpr std::string_view kAnthropic =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_9\",\"type\":\"message\","
    "\"role\":\"assistant\",\"content\":[],\"model\":\"claude\",\"stop_reason\":null,"
    "\"stop_sequence\":null,\"usage\":{\"input_tokens\":9,\"cache_read_input_tokens\":4,"
    "\"output_tokens\":1}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"
    "\"thinking\",\"thinking\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
    "\"thinking\":\"hmm\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\"Hi\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\" there\"}}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
    "\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

struct Fixture {
  explicit Fixture(protocol::Api api) {
    protocol::AdapterConfig c;
    c.api = api;
    adapter = protocol::make_adapter(c);
    recorder = std::make_unique<ResponseRecorder>(*adapter, true, 1 << 20, /*keep_text=*/true);
    record.t_sched_ns = 0;
    record.t_send_ns = 0;
    recorder->begin(record);
    record.status = 200;
  }
  // `stream` in two pieces, cut at `cut`, arriving at 10 and 20 ms; finished at 21 ms.
  const metrics::RequestRecord& run(std::string_view stream, size_t cut) {
    if (recorder->on_body(stream.substr(0, cut), 10 * kMs))
      recorder->on_body(stream.substr(cut), 20 * kMs);
    recorder->finish(21 * kMs, true);
    return record;
  }
  std::unique_ptr<protocol::Adapter> adapter;
  std::unique_ptr<ResponseRecorder> recorder;
  metrics::RequestRecord record;
};

TEST(EventsRecorder, ResponsesSplitAtEveryByteGivesTheSameOutcome) {
  for (size_t cut = 0; cut <= kResponses.size(); ++cut) {
    Fixture f(protocol::Api::openai_responses);
    const auto& r = f.run(kResponses, cut);
    ASSERT_TRUE(r.ok()) << "cut " << cut << ": " << r.error;
    EXPECT_EQ(r.events, 3u) << cut;  // the reasoning delta and two text deltas
    EXPECT_EQ(r.output_text, "Bonjour \xc3\xa0 tous") << cut;
    EXPECT_EQ(r.output_tokens, 7) << cut;  // usage.output_tokens of response.completed
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::usage) << cut;
    EXPECT_EQ(r.input_tokens, 21) << cut;
    EXPECT_EQ(r.server.cached_tokens, 16) << cut;
    EXPECT_EQ(r.server.source, ServerTimingSource::openai_usage) << cut;
    EXPECT_NE(r.t_first_ns, metrics::kNoTime) << cut;
    // The first text is reasoning: the first content may come later than the first token.
    EXPECT_GE(r.t_first_content_ns, r.t_first_ns) << cut;
  }
}

TEST(EventsRecorder, AnthropicSplitAtEveryByteGivesTheSameOutcome) {
  for (size_t cut = 0; cut <= kAnthropic.size(); ++cut) {
    Fixture f(protocol::Api::anthropic);
    const auto& r = f.run(kAnthropic, cut);
    ASSERT_TRUE(r.ok()) << "cut " << cut << ": " << r.error;
    EXPECT_EQ(r.events, 3u) << cut;  // thinking, two text deltas; not the ping
    EXPECT_EQ(r.output_text, "Hi there") << cut;
    EXPECT_EQ(r.output_tokens, 5) << cut;  // message_delta's, not message_start's 1
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::usage) << cut;
    EXPECT_EQ(r.input_tokens, 13) << cut;  // input_tokens + cache_read_input_tokens
    EXPECT_EQ(r.server.cached_tokens, 4) << cut;
    EXPECT_EQ(r.server.source, ServerTimingSource::anthropic_usage) << cut;
  }
}

TEST(EventsRecorder, InStreamErrorsAtEverySplit) {
  const std::string anthropic =
      std::string(kAnthropic.substr(0, kAnthropic.find("event: content_block_delta"))) +
      "event: error\n"
      "data: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": "
      "\"Overloaded\"}}\n\n";
  const std::string responses =
      std::string(kResponses.substr(0, kResponses.find("event: response.output_text.done"))) +
      "event: response.failed\n"
      "data: {\"type\":\"response.failed\",\"sequence_number\":4,\"response\":{\"id\":"
      "\"resp_9\",\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\","
      "\"message\":\"Rate limit reached\"},\"output\":[],\"usage\":null}}\n\n";
  for (size_t cut = 0; cut <= anthropic.size(); ++cut) {
    Fixture f(protocol::Api::anthropic);
    const auto& r = f.run(anthropic, cut);
    EXPECT_EQ(r.error_class, ErrorClass::overloaded) << cut;
    EXPECT_EQ(r.error, "Overloaded") << cut;
  }
  for (size_t cut = 0; cut <= responses.size(); ++cut) {
    Fixture f(protocol::Api::openai_responses);
    const auto& r = f.run(responses, cut);
    EXPECT_EQ(r.error_class, ErrorClass::rate_limited) << cut;
    EXPECT_EQ(r.error, "Rate limit reached") << cut;
  }
}

TEST(EventsRecorder, StreamWithoutItsLastEventIsIncomplete) {
  Fixture a(protocol::Api::anthropic);
  const auto& ra = a.run(kAnthropic.substr(0, kAnthropic.find("event: message_stop")), 0);
  EXPECT_EQ(ra.error_class, ErrorClass::incomplete_stream);
  Fixture o(protocol::Api::openai_responses);
  const auto& ro = o.run(kResponses.substr(0, kResponses.find("event: response.completed")), 0);
  EXPECT_EQ(ro.error_class, ErrorClass::incomplete_stream);
}

}  // namespace
}  // namespace sb::engine
