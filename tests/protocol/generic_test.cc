// Generic template adapter, and the API-name helpers. Stream bytes of the
// llama.cpp native /completion endpoint follow ggml-org/llama.cpp
// tools/server/server.cpp (handle_completions_impl: "data: {json}\n\n" per
// token with "content" and "stop", the last one with "stop": true).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

AdapterConfig generic_config(std::string tmpl, bool stream = true) {
  AdapterConfig config;
  config.api = Api::generic;
  config.stream = stream;
  config.generic_template = std::move(tmpl);
  config.generic_stream_pointer = "/token/text";
  config.generic_body_pointer = "/generated_text";
  return config;
}

ExitCode error_code_of(const AdapterConfig& config) {
  try {
    make_adapter(config);
  } catch (const Error& e) {
    return e.code();
  }
  return ExitCode::ok;
}

TEST(Api, NamesRoundTrip) {
  for (Api api : {Api::tgi, Api::openai, Api::openai_chat, Api::generic}) {
    EXPECT_EQ(api_from_string(to_string(api)), api);
  }
  EXPECT_EQ(to_string(Api::openai_chat), "openai-chat");
  EXPECT_FALSE(api_from_string("openai_chat"));
  EXPECT_FALSE(api_from_string(""));
}

TEST(GenericAdapter, DefaultPath) {
  EXPECT_EQ(make_adapter(generic_config(R"({"inputs":"{{prompt}}"})"))->default_path(),
            "/generate");
}

TEST(GenericAdapter, PlaceholdersInsideStringsAreEscapedWithoutQuotes) {
  auto a = make_adapter(generic_config(
      R"j({"inputs":"{{prompt}}","q":"Q: {{prompt}} (max {{max_tokens}})","model":"{{model}}","parameters":{"max_new_tokens":{{max_tokens}}}})j"));
  const std::string prompt = "say \"hi\"\\ \n\ttab \x01 caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80";
  const std::string text = a->build_body({prompt, "", 64});
  const auto body = nlohmann::json::parse(text);
  EXPECT_EQ(body["inputs"], prompt);
  EXPECT_EQ(body["q"], "Q: " + prompt + " (max 64)");
  EXPECT_EQ(body["model"], "");
  EXPECT_EQ(body["parameters"]["max_new_tokens"], 64);
  // UTF-8 is kept as is; control characters are escaped.
  EXPECT_NE(text.find("caf\xc3\xa9"), std::string::npos);
  EXPECT_NE(text.find("\\u0001"), std::string::npos);
  EXPECT_NE(text.find("\\n"), std::string::npos);
}

TEST(GenericAdapter, PlaceholdersOutsideStringsBecomeJsonValues) {
  AdapterConfig config =
      generic_config(R"({"prompt": {{prompt}}, "n": {{max_tokens}}, "model": {{model}}})");
  config.model = "llama \"7b\"";
  auto a = make_adapter(config);
  const auto body = nlohmann::json::parse(a->build_body({"a \"b\"\n", "", 5}));
  EXPECT_EQ(body["prompt"], "a \"b\"\n");
  EXPECT_EQ(body["n"], 5);
  EXPECT_EQ(body["model"], "llama \"7b\"");
  // max_tokens <= 0: null outside a string, empty inside one.
  EXPECT_TRUE(nlohmann::json::parse(a->build_body({"x", "", 0}))["n"].is_null());
  auto b = make_adapter(generic_config(R"({"inputs":"{{prompt}}","n":"{{max_tokens}}"})"));
  EXPECT_EQ(nlohmann::json::parse(b->build_body({"x", "", 0}))["n"], "");
}

TEST(GenericAdapter, EscapedQuotesInTemplateDoNotConfuseStringTracking) {
  auto a = make_adapter(
      generic_config(R"({"a":"say \"{{prompt}}\" now","b":{{prompt}},"c":"\\","d":"{{prompt}}"})"));
  const auto body = nlohmann::json::parse(a->build_body({"x\"y", "", 1}));
  EXPECT_EQ(body["a"], "say \"x\"y\" now");
  EXPECT_EQ(body["b"], "x\"y");
  EXPECT_EQ(body["c"], "\\");
  EXPECT_EQ(body["d"], "x\"y");
}

TEST(GenericAdapter, ExtraBodyMergedLast) {
  AdapterConfig config = generic_config(R"({"inputs":"{{prompt}}","parameters":{"a":1,"b":2}})");
  config.extra_body = {{"parameters", {{"b", nullptr}, {"c", 3}}}};
  const auto body = nlohmann::json::parse(make_adapter(config)->build_body({"x", "", 1}));
  EXPECT_EQ(body["inputs"], "x");
  EXPECT_EQ(body["parameters"], (nlohmann::json{{"a", 1}, {"c", 3}}));
}

TEST(GenericAdapter, BadConfigsAreUsageErrors) {
  EXPECT_EQ(error_code_of(generic_config(R"({"inputs":"no placeholder"})")), ExitCode::usage);
  EXPECT_EQ(error_code_of(generic_config(R"({"inputs":"{{prompt}}",})")), ExitCode::usage);
  EXPECT_EQ(error_code_of(generic_config(R"({"inputs":{{prompt}}{{prompt}}})")), ExitCode::usage);
  AdapterConfig no_pointer = generic_config(R"({"inputs":"{{prompt}}"})");
  no_pointer.generic_stream_pointer.clear();
  EXPECT_EQ(error_code_of(no_pointer), ExitCode::usage);
  AdapterConfig bad_pointer = generic_config(R"({"inputs":"{{prompt}}"})");
  bad_pointer.generic_body_pointer = "generated_text";
  EXPECT_EQ(error_code_of(bad_pointer), ExitCode::usage);
  AdapterConfig no_body_pointer = generic_config(R"({"inputs":"{{prompt}}"})", false);
  no_body_pointer.generic_body_pointer.clear();
  EXPECT_EQ(error_code_of(no_body_pointer), ExitCode::usage);
  EXPECT_EQ(error_code_of(generic_config(R"({"inputs":"{{prompt}}"})")), ExitCode::ok);
}

TEST(GenericAdapter, DecodeStreamByPointer) {
  auto a = make_adapter(generic_config(R"({"inputs":"{{prompt}}"})"));
  Decoded d = a->decode_event(
      R"({"index":1,"token":{"id":415,"text":" The","logprob":-0.4,"special":false},"generated_text":null})");
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, " The");
  EXPECT_EQ(d.content_chars, 4u);
  EXPECT_FALSE(d.final);
  d = a->decode_event(R"({"index":2,"token":{"id":2,"text":"","special":true}})");
  EXPECT_FALSE(d.text_event);
  d = a->decode_event(R"({"other":1})");  // pointer absent: no text, no error
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.error, ErrorClass::ok);
  d = a->decode_event(R"({"token":{"text":7}})");  // not a string: no text
  EXPECT_FALSE(d.text_event);
  d = a->decode_event(R"({"token":"flat"})");  // pointer through a non-object
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_TRUE(a->decode_event("[DONE]").final);
}

TEST(GenericAdapter, LlamaCppNativeCompletionWithFinalPointer) {
  AdapterConfig config =
      generic_config(R"({"prompt":"{{prompt}}","n_predict":{{max_tokens}},"stream":true})");
  config.generic_stream_pointer = "/content";
  config.generic_final_pointer = "/stop";
  auto a = make_adapter(config);
  const auto events = sse_payloads(
      "data: {\"index\":0,\"content\":\"Hello\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
      "\"tokens_predicted\":1,\"tokens_evaluated\":5}\n\n"
      "data: {\"index\":0,\"content\":\" world\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
      "\"tokens_predicted\":2,\"tokens_evaluated\":5}\n\n"
      "data: {\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":0,\"stop\":true,"
      "\"model\":\"gpt-3.5-turbo\",\"tokens_predicted\":2,\"tokens_evaluated\":5,"
      "\"stop_type\":\"limit\",\"stopping_word\":\"\",\"tokens_cached\":6}\n\n");
  ASSERT_EQ(events.size(), 3u);
  Decoded d = a->decode_event(events[0]);
  EXPECT_EQ(d.text, "Hello");
  EXPECT_FALSE(d.final);
  d = a->decode_event(events[1]);
  EXPECT_EQ(d.text, " world");
  d = a->decode_event(events[2]);
  EXPECT_TRUE(d.final);
  EXPECT_FALSE(d.text_event);
}

TEST(GenericAdapter, DecodeBodyUsageAndErrors) {
  auto a = make_adapter(generic_config(R"({"inputs":"{{prompt}}"})", false));
  Decoded d = a->decode_body(
      R"({"generated_text":"All done \u00e9","usage":{"prompt_tokens":3,"completion_tokens":4}})");
  EXPECT_TRUE(d.final);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, "All done \xc3\xa9");
  EXPECT_EQ(d.completion_tokens.value_or(-1), 4);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 3);
  d = a->decode_body(R"({"error":"CUDA out of memory"})");
  EXPECT_EQ(d.error, ErrorClass::server_error);
  EXPECT_EQ(d.error_message, "CUDA out of memory");
  d = a->decode_body(R"({"error":{"message":"slow down","code":429}})");
  EXPECT_EQ(d.error, ErrorClass::rate_limited);
  EXPECT_EQ(d.error_message, "slow down");
  d = a->decode_body(R"({"generated_text":"fine","error":null})");
  EXPECT_EQ(d.error, ErrorClass::ok);
  EXPECT_EQ(d.text, "fine");
  d = a->decode_body(R"({"generated_text":"trunc)");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_FALSE(d.error_message.empty());
}

}  // namespace
}  // namespace sb::protocol
