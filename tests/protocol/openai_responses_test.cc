// OpenAI Responses API adapter (--api openai-responses). The samples are written by hand
// from OpenAI's API reference (Responses, "Streaming events"): named SSE events whose data
// repeats the name in "type"; text in response.output_text.delta, reasoning in
// response.reasoning_text.delta / response.reasoning_summary_text.delta, the counts in the
// last event's response.usage; no [DONE]. Split at every byte:
// tests/engine/events_recorder_test.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

std::unique_ptr<Adapter> responses(bool stream = true) {
  AdapterConfig config;
  config.api = Api::openai_responses;
  config.stream = stream;
  config.model = "o4-mini";
  return make_adapter(config);
}

// A reasoning model's stream: a reasoning summary, raw reasoning text, two output deltas.
constexpr std::string_view kStream =
    "event: response.created\n"
    "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\","
    "\"object\":\"response\",\"created_at\":1741290958,\"status\":\"in_progress\",\"error\":null,"
    "\"incomplete_details\":null,\"model\":\"o4-mini\",\"output\":[],\"usage\":null}}\n"
    "\n"
    "event: response.in_progress\n"
    "data: {\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":"
    "\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n"
    "\n"
    "event: response.output_item.added\n"
    "data: {\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":0,"
    "\"item\":{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[]}}\n"
    "\n"
    "event: response.reasoning_summary_text.delta\n"
    "data: {\"type\":\"response.reasoning_summary_text.delta\",\"sequence_number\":3,"
    "\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\"**Greeting**\"}\n"
    "\n"
    "event: response.reasoning_text.delta\n"
    "data: {\"type\":\"response.reasoning_text.delta\",\"sequence_number\":4,\"item_id\":\"rs_1\","
    "\"output_index\":0,\"content_index\":0,\"delta\":\"say hi\"}\n"
    "\n"
    "event: response.reasoning_summary_text.done\n"
    "data: {\"type\":\"response.reasoning_summary_text.done\",\"sequence_number\":5,"
    "\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"text\":\"**Greeting**\"}\n"
    "\n"
    "event: response.output_item.added\n"
    "data: {\"type\":\"response.output_item.added\",\"sequence_number\":6,\"output_index\":1,"
    "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":"
    "\"assistant\",\"content\":[]}}\n"
    "\n"
    "event: response.content_part.added\n"
    "data: {\"type\":\"response.content_part.added\",\"sequence_number\":7,\"item_id\":\"msg_1\","
    "\"output_index\":1,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\","
    "\"annotations\":[]}}\n"
    "\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":8,\"item_id\":\"msg_1\","
    "\"output_index\":1,\"content_index\":0,\"delta\":\"Hi\",\"logprobs\":[]}\n"
    "\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":9,\"item_id\":\"msg_1\","
    "\"output_index\":1,\"content_index\":0,\"delta\":\" there!\",\"logprobs\":[]}\n"
    "\n"
    "event: response.output_text.done\n"
    "data: {\"type\":\"response.output_text.done\",\"sequence_number\":10,\"item_id\":\"msg_1\","
    "\"output_index\":1,\"content_index\":0,\"text\":\"Hi there!\"}\n"
    "\n"
    "event: response.completed\n"
    "data: {\"type\":\"response.completed\",\"sequence_number\":11,\"response\":{\"id\":\"resp_1\","
    "\"object\":\"response\",\"status\":\"completed\",\"error\":null,\"incomplete_details\":null,"
    "\"output\":[{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
    "\"text\":\"**Greeting**\"}]},{\"id\":\"msg_1\",\"type\":\"message\",\"status\":"
    "\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":"
    "\"Hi there!\",\"annotations\":[]}]}],\"usage\":{\"input_tokens\":12,"
    "\"input_tokens_details\":{\"cached_tokens\":8},\"output_tokens\":24,"
    "\"output_tokens_details\":{\"reasoning_tokens\":16},\"total_tokens\":36}}}\n"
    "\n";

// What a whole stream added up to.
struct Folded {
  std::string text;
  uint32_t reasoning_chars = 0;
  int text_events = 0;
  int finals = 0;
  bool final_last = false;
  std::optional<int64_t> completion, prompt;
  int64_t cached = -1;
  ErrorClass error = ErrorClass::ok;
  std::string error_message;
};

Folded fold(Adapter& a, std::string_view stream) {
  Folded f;
  for (const auto& payload : sse_payloads(stream)) {
    const Decoded d = a.decode_event(payload);
    f.text.append(d.text);
    EXPECT_EQ(d.content_chars, d.text.size());
    f.reasoning_chars += d.reasoning_chars;
    f.text_events += d.text_event;
    f.finals += d.final;
    f.final_last = d.final;
    if (d.completion_tokens) f.completion = d.completion_tokens;
    if (d.prompt_tokens) f.prompt = d.prompt_tokens;
    if (d.server_timings) f.cached = d.server_timings->cached_tokens;
    if (d.error != ErrorClass::ok && f.error == ErrorClass::ok) {
      f.error = d.error;
      f.error_message = d.error_message;
    }
  }
  return f;
}

TEST(OpenAiResponsesAdapter, RequestBody) {
  auto a = responses();
  EXPECT_EQ(a->default_path(), "/v1/responses");
  const auto body = nlohmann::json::parse(a->build_body({"Hi \"there\"", "", 16}));
  EXPECT_EQ(body["model"], "o4-mini");
  EXPECT_EQ(body["input"], "Hi \"there\"");
  EXPECT_EQ(body["max_output_tokens"], 16);
  EXPECT_EQ(body["stream"], true);
  EXPECT_FALSE(body.contains("stream_options"));  // not a Responses API field
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("ignore_eos"));
  const auto open = nlohmann::json::parse(a->build_body({"x", "", 0}));
  EXPECT_FALSE(open.contains("max_output_tokens"));  // the server decides
  // Chat messages go in as input items, verbatim.
  const auto chat = nlohmann::json::parse(a->build_body(
      {"", R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}])", 8}));
  ASSERT_TRUE(chat["input"].is_array());
  EXPECT_EQ(chat["input"][0]["role"], "system");
  EXPECT_EQ(chat["input"][1]["content"], "Hi");
  EXPECT_THROW(a->build_body({"", "{\"role\":\"user\"}", 8}), std::exception);
  AdapterConfig c;
  c.api = Api::openai_responses;
  c.stream = false;
  c.ignore_eos = true;
  c.extra_body = nlohmann::json{{"reasoning", {{"effort", "low"}}}};
  const auto whole = nlohmann::json::parse(make_adapter(c)->build_body({"x", "", 4}));
  EXPECT_EQ(whole["stream"], false);
  EXPECT_EQ(whole["ignore_eos"], true);
  EXPECT_FALSE(whole.contains("model"));
  EXPECT_EQ(whole["reasoning"]["effort"], "low");
}

TEST(OpenAiResponsesAdapter, StreamTextReasoningAndUsage) {
  auto a = responses();
  const auto events = sse_payloads(kStream);
  ASSERT_EQ(events.size(), 12u);
  Decoded d = a->decode_event(events[0]);  // response.created: usage null, nothing counted
  EXPECT_FALSE(d.text_event);
  EXPECT_FALSE(d.final);
  EXPECT_FALSE(d.completion_tokens);
  d = a->decode_event(events[3]);  // reasoning summary
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 12u);
  EXPECT_EQ(d.content_chars, 0u);
  EXPECT_TRUE(d.text.empty());
  d = a->decode_event(events[5]);  // .done repeats the text: not counted
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 0u);
  d = a->decode_event(events[8]);
  EXPECT_EQ(d.text, "Hi");
  EXPECT_TRUE(d.text_event);
  d = a->decode_event(events[10]);  // response.output_text.done
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.content_chars, 0u);

  const Folded f = fold(*a, kStream);
  EXPECT_EQ(f.text, "Hi there!");  // the completed response's output is not counted again
  EXPECT_EQ(f.reasoning_chars, 12u + 6u);
  EXPECT_EQ(f.text_events, 4);
  EXPECT_EQ(f.finals, 1);
  EXPECT_TRUE(f.final_last);
  EXPECT_EQ(f.completion.value_or(-1), 24);  // usage.output_tokens (reasoning included)
  EXPECT_EQ(f.prompt.value_or(-1), 12);
  EXPECT_EQ(f.cached, 8);
  EXPECT_EQ(f.error, ErrorClass::ok);
  d = a->decode_event(events[11]);
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->source, ServerTimingSource::openai_usage);
}

TEST(OpenAiResponsesAdapter, IncompleteIsANormalEnd) {
  // max_output_tokens reached: status "incomplete", the counts, no error.
  auto a = responses();
  const Decoded d = a->decode_event(
      R"({"type":"response.incomplete","sequence_number":9,"response":{"id":"resp_2",)"
      R"("object":"response","status":"incomplete","error":null,"incomplete_details":)"
      R"({"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":5,)"
      R"("input_tokens_details":{"cached_tokens":0},"output_tokens":16,"total_tokens":21}}})");
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 16);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 5);
}

TEST(OpenAiResponsesAdapter, ErrorEvents) {
  auto a = responses();
  // {"type":"error"} with its fields at the top level (the API reference's ResponseErrorEvent).
  Decoded d = a->decode_event(
      "{\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached "
      "for requests\",\"param\":null,\"sequence_number\":3}");
  EXPECT_EQ(d.error, ErrorClass::rate_limited);
  EXPECT_EQ(d.error_message, "Rate limit reached for requests");
  EXPECT_FALSE(d.final);
  // The nested form: {"type":"error","error":{"type","code","message","param"}}.
  d = a->decode_event(
      R"({"type":"error","sequence_number":2,"error":{"type":"invalid_request_error",)"
      R"("code":"context_length_exceeded","message":"Your input exceeds the context window.",)"
      R"("param":"input"}})");
  EXPECT_EQ(d.error, ErrorClass::validation);
  EXPECT_EQ(d.error_message, "Your input exceeds the context window.");
  // response.failed: the last event, classed by its error's code.
  d = a->decode_event(
      R"({"type":"response.failed","sequence_number":5,"response":{"id":"resp_3",)"
      R"("object":"response","status":"failed","error":{"code":"server_error","message":)"
      R"("The model failed to generate a response."},"incomplete_details":null,"output":[],)"
      R"("usage":null}})");
  EXPECT_EQ(d.error, ErrorClass::server_error);
  EXPECT_EQ(d.error_message, "The model failed to generate a response.");
  EXPECT_TRUE(d.final);
  d = a->decode_event(R"({"type":"response.failed","response":{"status":"failed","error":{"code":)"
                      R"("rate_limit_exceeded","message":"slow down"}}})");
  EXPECT_EQ(d.error, ErrorClass::rate_limited);
  d = a->decode_event(R"({"type":"response.failed","response":{"status":"failed"}})");
  EXPECT_EQ(d.error, ErrorClass::server_error);  // no error object: still a failure
  // Malformed JSON and non-objects.
  EXPECT_EQ(a->decode_event(R"({"type":"response.output_text.delta","delta":"x)").error,
            ErrorClass::malformed);
  EXPECT_EQ(a->decode_event("[1]").error, ErrorClass::malformed);
  // Unknown events and tool-call deltas count nothing.
  d = a->decode_event(
      R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"a\""})");
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.error, ErrorClass::ok);
}

TEST(OpenAiResponsesAdapter, WholeBody) {
  auto a = responses(false);
  const Decoded d = a->decode_body(
      R"({"id":"resp_4","object":"response","created_at":1741476777,"status":"completed",)"
      R"("error":null,"incomplete_details":null,"model":"o4-mini","output":[{"id":"rs_4",)"
      R"("type":"reasoning","summary":[{"type":"summary_text","text":"abc"}],"content":)"
      R"([{"type":"reasoning_text","text":"de"}]},{"id":"msg_4","type":"message","status":)"
      R"("completed","role":"assistant","content":[{"type":"output_text","text":"Hello",)"
      R"("annotations":[]},{"type":"output_text","text":" world","annotations":[]}]}],)"
      R"("usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},)"
      R"("output_tokens":87,"output_tokens_details":{"reasoning_tokens":80},)"
      R"("total_tokens":123}})");
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.text, "Hello world");
  EXPECT_EQ(d.content_chars, 11u);
  EXPECT_EQ(d.reasoning_chars, 5u);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 87);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 36);
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->cached_tokens, 0);

  const Decoded failed = a->decode_body(
      R"({"id":"resp_5","object":"response","status":"failed","error":{"code":"server_error",)"
      R"("message":"boom"},"output":[],"usage":null})");
  EXPECT_EQ(failed.error, ErrorClass::server_error);
  EXPECT_EQ(failed.error_message, "boom");
  EXPECT_EQ(a->decode_body("{\"output\":[").error, ErrorClass::malformed);
}

TEST(ApiNames, NewApisRoundTrip) {
  for (Api api : {Api::openai_responses, Api::anthropic})
    EXPECT_EQ(api_from_string(to_string(api)), api);
  EXPECT_EQ(to_string(Api::openai_responses), "openai-responses");
  EXPECT_EQ(to_string(Api::anthropic), "anthropic");
  EXPECT_FALSE(api_from_string("responses"));
}

}  // namespace
}  // namespace sb::protocol
