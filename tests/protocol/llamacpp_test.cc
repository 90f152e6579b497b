// llama.cpp adapter (--api llamacpp). Byte formats follow ggml-org/llama.cpp
// tools/server/server.cpp: stream events "data: {json}\n\n" with "content" and
// "stop": false, the last with "stop": true, tokens_predicted, tokens_evaluated and
// "timings"; no [DONE]; errors {"error": {"code", "message", "type"}}.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

std::unique_ptr<Adapter> llamacpp(bool stream = true) {
  AdapterConfig config;
  config.api = Api::llamacpp;
  config.stream = stream;
  return make_adapter(config);
}

// Hand-written from llama-server's output for a 2-token completion.
constexpr std::string_view kStream =
    "data: {\"index\":0,\"content\":\"Hello\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
    "\"tokens_predicted\":1,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\" world\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
    "\"tokens_predicted\":2,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":0,\"stop\":true,"
    "\"model\":\"gpt-3.5-turbo\",\"tokens_predicted\":2,\"tokens_evaluated\":5,"
    "\"generation_settings\":{\"n_predict\":2,\"stop\":[]},\"prompt\":\"<s> Hi\","
    "\"has_new_line\":false,\"truncated\":false,\"stop_type\":\"limit\",\"stopping_word\":\"\","
    "\"tokens_cached\":6,\"timings\":{\"cache_n\":3,\"prompt_n\":2,\"prompt_ms\":12.5,"
    "\"prompt_per_token_ms\":6.25,\"prompt_per_second\":160.0,\"predicted_n\":2,"
    "\"predicted_ms\":40.25,\"predicted_per_token_ms\":20.125,\"predicted_per_second\":49.7}}\n\n";

TEST(LlamaCppAdapter, RequestBody) {
  auto a = llamacpp();
  EXPECT_EQ(a->default_path(), "/completion");
  const auto body = nlohmann::json::parse(a->build_body({"Hi \"there\"", "", 16}));
  EXPECT_EQ(body["prompt"], "Hi \"there\"");
  EXPECT_EQ(body["n_predict"], 16);
  EXPECT_EQ(body["stream"], true);
  EXPECT_FALSE(body.contains("ignore_eos"));
  const auto open = nlohmann::json::parse(a->build_body({"x", "", 0}));
  EXPECT_EQ(open["n_predict"], -1);  // the server decides
  AdapterConfig c;
  c.api = Api::llamacpp;
  c.ignore_eos = true;
  c.stream = false;
  const auto whole = nlohmann::json::parse(make_adapter(c)->build_body({"x", "", 4}));
  EXPECT_EQ(whole["ignore_eos"], true);
  EXPECT_EQ(whole["stream"], false);
}

TEST(LlamaCppAdapter, StreamTextStopCountsAndTimings) {
  auto a = llamacpp();
  const auto events = sse_payloads(kStream);
  ASSERT_EQ(events.size(), 3u);
  Decoded d = a->decode_event(events[0]);
  EXPECT_EQ(d.text, "Hello");
  EXPECT_TRUE(d.text_event);
  EXPECT_FALSE(d.final);
  EXPECT_FALSE(d.completion_tokens);  // a running count, not the request's
  EXPECT_FALSE(d.server_timings);
  d = a->decode_event(events[1]);
  EXPECT_EQ(d.text, " world");
  d = a->decode_event(events[2]);
  EXPECT_TRUE(d.final);
  EXPECT_FALSE(d.text_event);
  ASSERT_TRUE(d.completion_tokens);
  EXPECT_EQ(*d.completion_tokens, 2);
  EXPECT_FALSE(d.completion_tokens_from_details);
  ASSERT_TRUE(d.prompt_tokens);
  EXPECT_EQ(*d.prompt_tokens, 5);
  ASSERT_TRUE(d.server_timings);
  EXPECT_DOUBLE_EQ(d.server_timings->prefill_ms, 12.5);
  EXPECT_DOUBLE_EQ(d.server_timings->decode_ms, 40.25);
  EXPECT_EQ(d.server_timings->cached_tokens, 3);
  EXPECT_LT(d.server_timings->queue_ms, 0);  // llama.cpp reports no queue time
  EXPECT_LT(d.server_timings->total_ms, 0);
}

TEST(LlamaCppAdapter, WholeBody) {
  auto a = llamacpp(false);
  Decoded d = a->decode_body(
      R"({"index":0,"content":"Hello world","tokens":[],"id_slot":0,"stop":true,)"
      R"("tokens_predicted":2,"tokens_evaluated":5,"timings":{"prompt_n":5,"prompt_ms":3.0,)"
      R"("predicted_n":2,"predicted_ms":9.5,"cache_n":0}})");
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.text, "Hello world");
  EXPECT_EQ(d.content_chars, 11u);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 2);
  ASSERT_TRUE(d.server_timings);
  EXPECT_DOUBLE_EQ(d.server_timings->decode_ms, 9.5);
  EXPECT_EQ(d.server_timings->cached_tokens, 0);
}

TEST(LlamaCppAdapter, ErrorsAndMalformed) {
  auto a = llamacpp();
  Decoded d = a->decode_event(
      R"({"error":{"code":503,"message":"Loading model","type":"unavailable_error"}})");
  EXPECT_EQ(d.error, ErrorClass::overloaded);
  EXPECT_EQ(d.error_message, "Loading model");
  d = a->decode_event(
      R"({"error":{"code":400,"message":"the request exceeds the available context size",)"
      R"("type":"exceed_context_size_error"}})");
  EXPECT_EQ(d.error, ErrorClass::validation);
  d = a->decode_event(R"({"content":"x","stop":fals)");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  d = a->decode_event("[1,2]");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  // A stream that never says stop is not final; [DONE] is not llama.cpp's.
  d = a->decode_event(R"({"content":"x","stop":false})");
  EXPECT_FALSE(d.final);
}

TEST(GenericAdapter, UsagePointerReadsACountOrAUsageObject) {
  AdapterConfig c;
  c.api = Api::generic;
  c.generic_template = R"({"prompt":"{{prompt}}","n_predict":{{max_tokens}},"stream":true})";
  c.generic_stream_pointer = "/content";
  c.generic_final_pointer = "/stop";
  c.generic_usage_pointer = "/tokens_predicted";
  auto a = make_adapter(c);
  const auto events = sse_payloads(kStream);
  Decoded d = a->decode_event(events[2]);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 2);
  c.generic_usage_pointer = "/u";
  auto b = make_adapter(c);
  d = b->decode_event(
      R"({"content":"","stop":true,"u":{"completion_tokens":7,"prompt_tokens":3}})");
  EXPECT_EQ(d.completion_tokens.value_or(-1), 7);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 3);
  c.generic_usage_pointer = "tokens";
  EXPECT_THROW(make_adapter(c), std::exception);
}

}  // namespace
}  // namespace sb::protocol
