// Anthropic Messages API adapter (--api anthropic). The samples are written by hand from
// Anthropic's documentation (Messages, Streaming Messages, Errors): message_start with the
// input usage, content blocks (thinking_delta, signature_delta, text_delta), ping,
// message_delta with the output count, message_stop; error events. Split at every byte:
// tests/engine/events_recorder_test.cc.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

std::unique_ptr<Adapter> anthropic(bool stream = true) {
  AdapterConfig config;
  config.api = Api::anthropic;
  config.stream = stream;
  config.model = "claude-sonnet-4-5";
  return make_adapter(config);
}

// Extended thinking, then text; a ping between blocks; the prompt partly read from the cache.
constexpr std::string_view kStream =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\","
    "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\","
    "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,"
    "\"cache_creation_input_tokens\":3,\"cache_read_input_tokens\":10,\"output_tokens\":1}}}\n"
    "\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"
    "\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n"
    "\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
    "\"thinking\":\"Let me think.\"}}\n"
    "\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
    "\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}"
    "\n"
    "\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n"
    "\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\","
    "\"text\":\"\"}}\n"
    "\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n"
    "\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\"Hello\"}}\n"
    "\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\", world!\"}}\n"
    "\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n"
    "\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
    "\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}\n"
    "\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n"
    "\n";

TEST(AnthropicAdapter, RequestBody) {
  auto a = anthropic();
  EXPECT_EQ(a->default_path(), "/v1/messages");
  const auto body = nlohmann::json::parse(a->build_body({"Hi \"there\"", "", 16}));
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["max_tokens"], 16);
  EXPECT_EQ(body["stream"], true);
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "Hi \"there\"");
  EXPECT_FALSE(body.contains("system"));
  EXPECT_FALSE(body.contains("ignore_eos"));
  EXPECT_FALSE(body.contains("stream_options"));
  // max_tokens is required by the API: a prompt without a length still sends one.
  const auto open = nlohmann::json::parse(a->build_body({"x", "", 0}));
  EXPECT_EQ(open["max_tokens"], 4096);
  // Chat messages: the system messages move to the top-level "system".
  const auto chat = nlohmann::json::parse(a->build_body(
      {"",
       R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},)"
       R"({"role":"assistant","content":"Hello"},{"role":"system","content":"No emoji."},)"
       R"({"role":"user","content":[{"type":"text","text":"Again"}]}])",
       8}));
  EXPECT_EQ(chat["system"], "Be brief.\n\nNo emoji.");
  ASSERT_EQ(chat["messages"].size(), 3u);
  EXPECT_EQ(chat["messages"][0]["role"], "user");
  EXPECT_EQ(chat["messages"][1]["role"], "assistant");
  EXPECT_EQ(chat["messages"][2]["content"][0]["text"], "Again");
  AdapterConfig c;
  c.api = Api::anthropic;
  c.stream = false;
  const auto whole = nlohmann::json::parse(make_adapter(c)->build_body({"x", "", 4}));
  EXPECT_EQ(whole["stream"], false);
  EXPECT_FALSE(whole.contains("model"));
}

TEST(AnthropicAdapter, HeadersCarryTheKeyAsXApiKeyAndTheVersion) {
  EXPECT_EQ(api_headers(Api::anthropic, "sk-ant-1", {}),
            "x-api-key: sk-ant-1\r\nanthropic-version: 2023-06-01\r\n");
  EXPECT_EQ(api_headers(Api::anthropic, "", {}), "anthropic-version: 2023-06-01\r\n");
  // A -H anthropic-version (any case) is the one sent.
  EXPECT_EQ(api_headers(Api::anthropic, "k", {{"Anthropic-Version", "2024-01-01"}}),
            "x-api-key: k\r\n");
  // Every other API: a bearer token, or nothing.
  EXPECT_EQ(api_headers(Api::openai_responses, "sk-1", {}), "Authorization: Bearer sk-1\r\n");
  EXPECT_EQ(api_headers(Api::openai_chat, "sk-1", {}), "Authorization: Bearer sk-1\r\n");
  EXPECT_EQ(api_headers(Api::tgi, "", {}), "");
}

TEST(AnthropicAdapter, StreamThinkingTextPingAndUsage) {
  auto a = anthropic();
  const auto events = sse_payloads(kStream);
  ASSERT_EQ(events.size(), 12u);
  Decoded d = a->decode_event(events[0]);  // message_start
  EXPECT_FALSE(d.text_event);
  EXPECT_FALSE(d.final);
  EXPECT_FALSE(d.completion_tokens);  // its output_tokens is a running count
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 25 + 3 + 10);
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->cached_tokens, 10);
  EXPECT_EQ(d.server_timings->source, ServerTimingSource::anthropic_usage);
  d = a->decode_event(events[1]);  // an empty thinking block starts: nothing yet
  EXPECT_FALSE(d.text_event);
  d = a->decode_event(events[2]);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 13u);
  EXPECT_EQ(d.content_chars, 0u);
  d = a->decode_event(events[3]);  // signature_delta
  EXPECT_FALSE(d.text_event);
  d = a->decode_event(events[6]);  // ping
  EXPECT_FALSE(d.text_event);
  EXPECT_FALSE(d.final);
  EXPECT_EQ(d.error, ErrorClass::ok);
  d = a->decode_event(events[7]);
  EXPECT_EQ(d.text, "Hello");
  EXPECT_EQ(d.content_chars, 5u);
  EXPECT_TRUE(d.text_event);
  d = a->decode_event(events[10]);  // message_delta
  EXPECT_EQ(d.completion_tokens.value_or(-1), 15);
  EXPECT_FALSE(d.final);
  d = a->decode_event(events[11]);
  EXPECT_TRUE(d.final);

  std::string text;
  uint32_t reasoning = 0;
  int text_events = 0, finals = 0;
  for (const auto& e : events) {
    const Decoded x = a->decode_event(e);
    text.append(x.text);
    reasoning += x.reasoning_chars;
    text_events += x.text_event;
    finals += x.final;
    EXPECT_EQ(x.error, ErrorClass::ok) << e;
  }
  EXPECT_EQ(text, "Hello, world!");
  EXPECT_EQ(reasoning, 13u);
  EXPECT_EQ(text_events, 3);
  EXPECT_EQ(finals, 1);
}

TEST(AnthropicAdapter, ErrorEvents) {
  auto a = anthropic();
  const auto events = sse_payloads(
      "event: error\n"
      "data: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": "
      "\"Overloaded\"}}\n\n");
  ASSERT_EQ(events.size(), 1u);
  Decoded d = a->decode_event(events[0]);
  EXPECT_EQ(d.error, ErrorClass::overloaded);
  EXPECT_EQ(d.error_message, "Overloaded");
  const auto error_of = [&](std::string_view type) {
    return a
        ->decode_event(
            fmt::format(R"({{"type":"error","error":{{"type":"{}","message":"m"}}}})", type))
        .error;
  };
  EXPECT_EQ(error_of("rate_limit_error"), ErrorClass::rate_limited);
  EXPECT_EQ(error_of("api_error"), ErrorClass::server_error);
  EXPECT_EQ(error_of("invalid_request_error"), ErrorClass::validation);
  EXPECT_EQ(error_of("authentication_error"), ErrorClass::client_error);
  EXPECT_EQ(error_of("request_too_large"), ErrorClass::client_error);
  EXPECT_EQ(error_of("timeout_error"), ErrorClass::timeout);
  EXPECT_EQ(error_of("something_new_error"), ErrorClass::server_error);
  d = a->decode_event(R"({"type":"error"})");
  EXPECT_EQ(d.error, ErrorClass::server_error);
  EXPECT_EQ(d.error_message, "(no message)");
  EXPECT_EQ(a->decode_event(R"({"type":"content_block_delta","delta":{"type":"text_d)").error,
            ErrorClass::malformed);
  EXPECT_EQ(a->decode_event("\"message_stop\"").error, ErrorClass::malformed);
  // [DONE] is not Anthropic's: it is malformed JSON, never a silent end.
  EXPECT_EQ(a->decode_event("[DONE]").error, ErrorClass::malformed);
}

TEST(AnthropicAdapter, CumulativeUsageInMessageDelta) {
  // Newer API versions repeat the input counts in message_delta.
  auto a = anthropic();
  const Decoded d = a->decode_event(
      R"({"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},)"
      R"("usage":{"input_tokens":7,"cache_creation_input_tokens":0,)"
      R"("cache_read_input_tokens":0,"output_tokens":64}})");
  EXPECT_EQ(d.completion_tokens.value_or(-1), 64);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 7);
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->cached_tokens, 0);
}

TEST(AnthropicAdapter, WholeBody) {
  auto a = anthropic(false);
  const Decoded d = a->decode_body(
      R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",)"
      R"("content":[{"type":"thinking","thinking":"Hmm.","signature":"abc"},)"
      R"({"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"Hi! "},)"
      R"({"type":"text","text":"Bye."}],"stop_reason":"end_turn","stop_sequence":null,)"
      R"("usage":{"input_tokens":12,"cache_creation_input_tokens":0,)"
      R"("cache_read_input_tokens":4,"output_tokens":9}})");
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.text, "Hi! Bye.");
  EXPECT_EQ(d.content_chars, 8u);
  EXPECT_EQ(d.reasoning_chars, 4u);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 9);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 16);
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->cached_tokens, 4);

  const Decoded e = a->decode_body(
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(e.error, ErrorClass::overloaded);
  EXPECT_EQ(a->decode_body("{\"content\":[").error, ErrorClass::malformed);
}

}  // namespace
}  // namespace sb::protocol
