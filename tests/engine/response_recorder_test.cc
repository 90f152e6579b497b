// The response recorder against transcripts in the servers' exact formats
// (docs/architecture.md), with hand-computed timelines (docs/metrics.md).
#include "engine/response_recorder.h"

#include <gtest/gtest.h>

#include <memory>

namespace sb::engine {
namespace {

using metrics::RequestRecord;
using metrics::TokenSource;
constexpr int64_t kMs = 1'000'000;

struct Fixture {
  explicit Fixture(protocol::Api api, bool stream = true, size_t max_event = 1 << 20) {
    protocol::AdapterConfig c;
    c.api = api;
    c.stream = stream;
    c.model = "m";
    adapter = protocol::make_adapter(c);
    recorder = std::make_unique<ResponseRecorder>(*adapter, stream, max_event);
    record.t_sched_ns = 0;
    record.t_send_ns = 0;
    recorder->begin(record);
    record.status = 200;
  }
  std::unique_ptr<protocol::Adapter> adapter;
  std::unique_ptr<ResponseRecorder> recorder;
  RequestRecord record;
};

// TGI /generate_stream: `data:` without a space, one token per event, details on the last.
constexpr const char* kTgi[] = {
    "data:{\"index\":1,\"token\":{\"id\":15043,\"text\":\"Hello\",\"logprob\":-0.5,\"special\":false},"
    "\"generated_text\":null,\"details\":null}\n\n",
    "data:{\"index\":2,\"token\":{\"id\":3186,\"text\":\" world\",\"logprob\":-0.2,\"special\":false},"
    "\"generated_text\":null,\"details\":null}\n\n",
    "data:{\"index\":3,\"token\":{\"id\":29991,\"text\":\"!\",\"logprob\":-0.1,\"special\":false},"
    "\"generated_text\":\"Hello world!\",\"details\":{\"finish_reason\":\"length\","
    "\"generated_tokens\":3,\"seed\":null,\"input_length\":5}}\n\n",
};

TEST(ResponseRecorder, TgiStreamTimeline) {
  Fixture f(protocol::Api::tgi);
  EXPECT_TRUE(f.recorder->on_body(kTgi[0], 100 * kMs));
  EXPECT_TRUE(f.recorder->on_body(kTgi[1], 130 * kMs));
  EXPECT_TRUE(f.recorder->on_body(kTgi[2], 170 * kMs));
  f.recorder->finish(171 * kMs, true);
  const auto& r = f.record;
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.events, 3u);
  EXPECT_DOUBLE_EQ(*r.ttft_ms(), 100.0);
  EXPECT_DOUBLE_EQ(*r.e2e_ms(), 170.0);
  // tpot = (170 - 100) / (3 - 1) = 35 ms
  EXPECT_DOUBLE_EQ(*r.tpot_ms(), 35.0);
  ASSERT_EQ(r.itl_ms.size(), 2u);
  EXPECT_FLOAT_EQ(r.itl_ms[0], 30.0f);
  EXPECT_FLOAT_EQ(r.itl_ms[1], 40.0f);
  EXPECT_EQ(r.output_tokens, 3);
  EXPECT_EQ(r.output_tokens_source, TokenSource::details);
  EXPECT_EQ(r.output_tokens_alt, 3);  // one token per event
  EXPECT_EQ(r.input_tokens, 5);
  EXPECT_EQ(r.t_end_ns, 171 * kMs);
}

TEST(ResponseRecorder, TgiSplitAtEveryByteGivesTheSameOutcome) {
  std::string all = std::string(kTgi[0]) + kTgi[1] + kTgi[2];
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    Fixture f(protocol::Api::tgi);
    f.recorder->on_body(std::string_view(all).substr(0, cut), 10 * kMs);
    f.recorder->on_body(std::string_view(all).substr(cut), 20 * kMs);
    f.recorder->finish(20 * kMs, true);
    ASSERT_TRUE(f.record.ok()) << "cut " << cut << ": " << f.record.error;
    EXPECT_EQ(f.record.events, 3u);
    EXPECT_EQ(f.record.output_tokens, 3);
    EXPECT_EQ(f.record.itl_ms.size(), 2u);
    // The first event completes in the first piece only when the cut is past its end.
    const bool first_in_first = cut >= std::string_view(kTgi[0]).size();
    EXPECT_EQ(f.record.t_first_ns, (first_in_first ? 10 : 20) * kMs) << cut;
    EXPECT_EQ(f.record.t_last_ns, (cut == all.size() ? 10 : 20) * kMs) << cut;
  }
}

// vLLM /v1/chat/completions with include_usage: role-only first chunk, content,
// a usage chunk with "choices":[], then [DONE].
constexpr const char* kChatRole =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"logprobs\":null,\"finish_reason\":null}]}\n\n";
std::string chat_chunk(std::string_view field, std::string_view text) {
  return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
         "\"choices\":[{\"index\":0,\"delta\":{\"" +
         std::string(field) + "\":\"" + std::string(text) +
         "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
}
constexpr const char* kChatUsage =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"total_tokens\":10,\"completion_tokens\":3}}\n\n";
constexpr const char* kDone = "data: [DONE]\n\n";

TEST(ResponseRecorder, ChatRoleChunkIsNotATokenAndUsageWins) {
  Fixture f(protocol::Api::openai_chat);
  f.recorder->on_body(kChatRole, 50 * kMs);
  f.recorder->on_body(chat_chunk("content", "Hi"), 80 * kMs);
  f.recorder->on_body(chat_chunk("content", " there") + chat_chunk("content", "!"), 100 * kMs);
  f.recorder->on_body(std::string(kChatUsage) + kDone, 101 * kMs);
  f.recorder->finish(101 * kMs, true);
  const auto& r = f.record;
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_DOUBLE_EQ(*r.ttft_ms(), 80.0);  // not 50: the role-only chunk carries no text
  EXPECT_EQ(r.events, 3u);
  EXPECT_DOUBLE_EQ(*r.e2e_ms(), 100.0);  // the usage chunk and [DONE] do not move t_last
  EXPECT_EQ(r.output_tokens, 3);
  EXPECT_EQ(r.output_tokens_source, TokenSource::usage);
  EXPECT_EQ(r.input_tokens, 7);
  ASSERT_EQ(r.itl_ms.size(), 2u);
  EXPECT_FLOAT_EQ(r.itl_ms[0], 20.0f);
  EXPECT_FLOAT_EQ(r.itl_ms[1], 0.0f);  // two events in one read share its arrival time
}

TEST(ResponseRecorder, ReasoningBeforeContentGivesTwoTtfts) {
  Fixture f(protocol::Api::openai_chat);
  f.recorder->on_body(chat_chunk("reasoning_content", "think"), 60 * kMs);
  f.recorder->on_body(chat_chunk("content", "answer"), 90 * kMs);
  f.recorder->on_body(kDone, 91 * kMs);
  f.recorder->finish(91 * kMs, true);
  ASSERT_TRUE(f.record.ok()) << f.record.error;
  EXPECT_DOUBLE_EQ(*f.record.ttft_ms(), 60.0);
  EXPECT_DOUBLE_EQ(*f.record.ttft_content_ms(), 90.0);
  // No usage: estimated from "think" + "answer" = 11 bytes -> ceil(11 / 4) = 3 tokens.
  EXPECT_EQ(f.record.output_tokens, 3);
  EXPECT_EQ(f.record.output_tokens_source, TokenSource::estimate);
}

TEST(ResponseRecorder, StreamWithoutFinalEventIsIncomplete) {
  Fixture f(protocol::Api::openai_chat);
  f.recorder->on_body(chat_chunk("content", "Hi"), 10 * kMs);
  f.recorder->finish(20 * kMs, true);
  EXPECT_EQ(f.record.error_class, ErrorClass::incomplete_stream);
  EXPECT_EQ(f.record.events, 1u);  // what arrived is kept
}

TEST(ResponseRecorder, NonSseBodyOnAStreamIsMalformed) {
  Fixture f(protocol::Api::openai);
  f.recorder->on_body("{\"id\":\"x\",\"choices\":[{\"text\":\"hello\"}]}", 10 * kMs);
  f.recorder->finish(10 * kMs, true);
  EXPECT_EQ(f.record.error_class, ErrorClass::malformed);
  EXPECT_NE(f.record.error.find("not an SSE stream"), std::string::npos) << f.record.error;
}

TEST(ResponseRecorder, TgiOverloadedEventInStream) {
  Fixture f(protocol::Api::tgi);
  f.recorder->on_body(kTgi[0], 10 * kMs);
  const bool go_on = f.recorder->on_body(
      "data:{\"error\":\"Model is overloaded\",\"error_type\":\"overloaded\"}\n\n", 20 * kMs);
  EXPECT_FALSE(go_on);
  f.recorder->finish(20 * kMs, false);
  EXPECT_EQ(f.record.error_class, ErrorClass::overloaded);
  EXPECT_NE(f.record.error.find("overloaded"), std::string::npos);
  EXPECT_EQ(f.record.status, 200);
}

TEST(ResponseRecorder, MalformedJsonEvent) {
  Fixture f(protocol::Api::openai);
  EXPECT_FALSE(f.recorder->on_body("data: {\"choices\":[{\"text\":\"a\"\n\n", 10 * kMs));
  f.recorder->finish(10 * kMs, false);
  EXPECT_EQ(f.record.error_class, ErrorClass::malformed);
}

TEST(ResponseRecorder, EventOverTheLimitIsMalformed) {
  Fixture f(protocol::Api::openai, true, 4096);
  const std::string big = "data: {\"choices\":[{\"text\":\"" + std::string(8192, 'x') + "\"}]}\n\n";
  EXPECT_FALSE(f.recorder->on_body(big, 10 * kMs));
  f.recorder->finish(10 * kMs, false);
  EXPECT_EQ(f.record.error_class, ErrorClass::malformed);
  EXPECT_NE(f.record.error.find("4096"), std::string::npos);
}

TEST(ResponseRecorder, ErrorStatusKeepsTheBodyPrefix) {
  Fixture f(protocol::Api::openai);
  f.recorder->on_error_status(503);
  f.recorder->on_error_body(std::string(300, 'a'));
  f.recorder->on_error_body(std::string(300, 'b'));
  f.recorder->finish(5 * kMs, true);
  EXPECT_EQ(f.record.status, 503);
  EXPECT_EQ(f.record.error_class, ErrorClass::overloaded);
  EXPECT_EQ(f.record.error.size(), 512u);
  EXPECT_FALSE(f.record.ttft_ms());
}

TEST(ResponseRecorder, NonStreamedBodyHasTtftEqualToE2e) {
  Fixture f(protocol::Api::openai, false);
  f.recorder->on_body("{\"id\":\"x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,", 40 * kMs);
  f.recorder->on_body("\"text\":\"hello world\",\"finish_reason\":\"length\"}],"
                      "\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2,\"total_tokens\":6}}",
                      50 * kMs);
  f.recorder->finish(50 * kMs, true);
  ASSERT_TRUE(f.record.ok()) << f.record.error;
  EXPECT_DOUBLE_EQ(*f.record.ttft_ms(), 50.0);
  EXPECT_DOUBLE_EQ(*f.record.e2e_ms(), 50.0);
  EXPECT_EQ(f.record.output_tokens, 2);
  EXPECT_EQ(f.record.input_tokens, 4);
}

}  // namespace
}  // namespace sb::engine
