// TGI adapter. Byte formats follow huggingface/text-generation-inference:
// - router/src/server.rs generate_stream: every event is axum's
//   Event::default().json_data(StreamResponse), framed "data:{json}\n\n" (no
//   space), no [DONE]; errors are Event::from(InferError) = json_data(ErrorResponse
//   {error, error_type}) sent after the 200 header;
// - router/src/lib.rs: StreamResponse {index, token {id, text, logprob, special},
//   top_tokens, generated_text, details {finish_reason, generated_tokens, seed,
//   input_length}}, GenerateResponse {generated_text, details}, GenerateParameters
//   (no ignore_eos field).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

std::unique_ptr<Adapter> tgi(bool stream = true) {
  AdapterConfig config;
  config.api = Api::tgi;
  config.stream = stream;
  return make_adapter(config);
}

// A 4-token TGI stream: three text tokens, then EOS (special, empty text) with
// generated_text and details in the same, final event.
constexpr std::string_view kTgiStream =
    "data:{\"index\":1,\"token\":{\"id\":415,\"text\":\" "
    "The\",\"logprob\":-0.4675,\"special\":false},"
    "\"top_tokens\":null,\"generated_text\":null,\"details\":null}\n\n"
    "data:{\"index\":2,\"token\":{\"id\":7212,\"text\":\" "
    "sky\",\"logprob\":-0.9473,\"special\":false},"
    "\"top_tokens\":null,\"generated_text\":null,\"details\":null}\n\n"
    "data:{\"index\":3,\"token\":{\"id\":28723,\"text\":\" \\u00e9t\\u00e9\\n\",\"logprob\":-1.5,"
    "\"special\":false},\"top_tokens\":null,\"generated_text\":null,\"details\":null}\n\n"
    "data:{\"index\":4,\"token\":{\"id\":2,\"text\":\"</s>\",\"logprob\":-0.01,\"special\":true},"
    "\"top_tokens\":null,\"generated_text\":\" The sky \\u00e9t\\u00e9\\n\",\"details\":"
    "{\"finish_reason\":\"eos_token\",\"generated_tokens\":4,\"seed\":null,\"input_length\":12}}"
    "\n\n";

TEST(TgiAdapter, DefaultPaths) {
  EXPECT_EQ(tgi(true)->default_path(), "/generate_stream");
  EXPECT_EQ(tgi(false)->default_path(), "/generate");
}

TEST(TgiAdapter, BuildBody) {
  const auto body = nlohmann::json::parse(tgi()->build_body({"Hello \"world\"\n", "", 128}));
  EXPECT_EQ(body["inputs"], "Hello \"world\"\n");
  EXPECT_EQ(body["parameters"]["max_new_tokens"], 128);
  EXPECT_EQ(body["parameters"]["details"], true);
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("model"));
  // max_tokens <= 0 leaves the length to the server.
  const auto open = nlohmann::json::parse(tgi()->build_body({"x", "", 0}));
  EXPECT_FALSE(open["parameters"].contains("max_new_tokens"));
}

TEST(TgiAdapter, IgnoreEosIsNotSentBecauseTgiHasNoSuchParameter) {
  AdapterConfig config;
  config.api = Api::tgi;
  config.ignore_eos = true;
  const auto body = nlohmann::json::parse(make_adapter(config)->build_body({"x", "", 8}));
  EXPECT_FALSE(body.contains("ignore_eos"));
  EXPECT_FALSE(body["parameters"].contains("ignore_eos"));
}

TEST(TgiAdapter, ExtraBodyIsAMergePatchAppliedLast) {
  AdapterConfig config;
  config.api = Api::tgi;
  config.extra_body = {{"parameters", {{"temperature", 0.5}, {"details", nullptr}}},
                       {"inputs", "overridden"}};
  const auto body = nlohmann::json::parse(make_adapter(config)->build_body({"x", "", 8}));
  EXPECT_EQ(body["inputs"], "overridden");
  EXPECT_EQ(body["parameters"]["temperature"], 0.5);
  EXPECT_EQ(body["parameters"]["max_new_tokens"], 8);    // merged, not replaced
  EXPECT_FALSE(body["parameters"].contains("details"));  // null removes
}

TEST(TgiAdapter, DecodeStream) {
  auto a = tgi();
  const auto events = sse_payloads(kTgiStream);
  ASSERT_EQ(events.size(), 4u);

  Decoded d = a->decode_event(events[0]);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.tokens, 1u);
  EXPECT_EQ(d.text, " The");
  EXPECT_EQ(d.content_chars, 4u);
  EXPECT_FALSE(d.final);
  EXPECT_FALSE(d.completion_tokens);
  EXPECT_EQ(d.error, ErrorClass::ok);

  d = a->decode_event(events[2]);  // JSON escapes are decoded
  EXPECT_EQ(d.text, " \xc3\xa9t\xc3\xa9\n");
  EXPECT_EQ(d.content_chars, 7u);

  d = a->decode_event(events[3]);  // EOS: a token, final, with details
  EXPECT_EQ(d.tokens, 1u);
  EXPECT_TRUE(d.text_event);  // it has text: it moves t_last
  EXPECT_EQ(d.text, "");      // but special text is not output text
  EXPECT_EQ(d.content_chars, 0u);
  EXPECT_TRUE(d.final);
  ASSERT_TRUE(d.completion_tokens);
  EXPECT_EQ(*d.completion_tokens, 4);
  EXPECT_TRUE(d.completion_tokens_from_details);
  ASSERT_TRUE(d.prompt_tokens);
  EXPECT_EQ(*d.prompt_tokens, 12);
}

TEST(TgiAdapter, SpecialTokenWithoutTextIsNotTextBearing) {
  auto a = tgi();
  const Decoded d = a->decode_event(
      "{\"index\":5,\"token\":{\"id\":2,\"text\":\"\",\"logprob\":-0.1,\"special\":true},"
      "\"generated_text\":\"abc\",\"details\":{\"finish_reason\":\"eos_token\","
      "\"generated_tokens\":5,\"seed\":42,\"input_length\":3}}");
  EXPECT_EQ(d.tokens, 1u);
  EXPECT_FALSE(d.text_event);
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 5);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 3);
}

TEST(TgiAdapter, FinalEventWithoutDetails) {
  // parameters.details=false: the final event has generated_text but details null.
  auto a = tgi();
  const Decoded d = a->decode_event(
      "{\"index\":2,\"token\":{\"id\":9,\"text\":\"!\",\"logprob\":-0.2,\"special\":false},"
      "\"generated_text\":\"Hi!\",\"details\":null}");
  EXPECT_TRUE(d.final);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, "!");  // the stream's text is the token, not the whole generated_text
  EXPECT_FALSE(d.completion_tokens);
}

TEST(TgiAdapter, InStreamErrors) {
  auto a = tgi();
  struct Case {
    std::string_view type;
    ErrorClass want;
  };
  for (const Case& c :
       {Case{"overloaded", ErrorClass::overloaded}, Case{"validation", ErrorClass::validation},
        Case{"generation", ErrorClass::server_error},
        Case{"incomplete_generation", ErrorClass::incomplete_stream},
        Case{"template_error", ErrorClass::validation},
        Case{"something_new", ErrorClass::server_error}}) {
    const std::string event =
        "{\"error\":\"Model is overloaded\",\"error_type\":\"" + std::string(c.type) + "\"}";
    const Decoded d = a->decode_event(event);
    EXPECT_EQ(d.error, c.want) << c.type;
    EXPECT_EQ(d.error_message, "Model is overloaded");
    EXPECT_FALSE(d.text_event);
  }
  // A request failing validation mid-stream, with the framing TGI uses.
  const auto events = sse_payloads(
      "data:{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= "
      "2048. Given: 2000 `inputs` tokens and 100 `max_new_tokens`\",\"error_type\":\"validation\"}"
      "\n\n");
  ASSERT_EQ(events.size(), 1u);
  const Decoded d = a->decode_event(events[0]);
  EXPECT_EQ(d.error, ErrorClass::validation);
  EXPECT_EQ(d.error_message.substr(0, 22), "Input validation error");
  // Error messages are clipped to 512 bytes.
  const Decoded big = a->decode_event("{\"error\":\"" + std::string(2000, 'x') +
                                      "\",\"error_type\":\"generation\"}");
  EXPECT_EQ(big.error_message.size(), 512u);
}

TEST(TgiAdapter, DecodeBody) {
  auto a = tgi(false);
  Decoded d = a->decode_body(
      "{\"generated_text\":\"Deep learning is a subset of machine learning\",\"details\":"
      "{\"finish_reason\":\"length\",\"generated_tokens\":8,\"seed\":null,\"prefill\":[],"
      "\"tokens\":[]}}");
  EXPECT_TRUE(d.final);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, "Deep learning is a subset of machine learning");
  EXPECT_EQ(d.content_chars, d.text.size());
  EXPECT_EQ(d.completion_tokens.value_or(-1), 8);
  EXPECT_TRUE(d.completion_tokens_from_details);
  EXPECT_EQ(d.tokens, 0u);
  // Some versions answer with an array of one such object.
  d = a->decode_body("[{\"generated_text\":\"Hi\",\"details\":{\"generated_tokens\":1}}]");
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.text, "Hi");
  EXPECT_EQ(d.completion_tokens.value_or(-1), 1);
  // details=false: no count.
  d = a->decode_body("{\"generated_text\":\"Hi\"}");
  EXPECT_EQ(d.text, "Hi");
  EXPECT_FALSE(d.completion_tokens);
}

TEST(TgiAdapter, MalformedJson) {
  auto a = tgi();
  for (std::string_view bad : {"{\"index\":1,\"token\":{\"id\":415,\"text\":\" The\"",
                               "{\"index\":1,,}", "not json", "\"just a string\"", ""}) {
    const Decoded d = a->decode_event(bad);
    EXPECT_EQ(d.error, ErrorClass::malformed) << bad;
    EXPECT_FALSE(d.error_message.empty()) << bad;
    EXPECT_FALSE(d.text_event) << bad;
  }
  // The adapter keeps working after a malformed event.
  EXPECT_EQ(a->decode_event(sse_payloads(kTgiStream)[0]).text, " The");
}

TEST(TgiAdapter, TextViewValidUntilNextDecode) {
  auto a = tgi();
  const auto events = sse_payloads(kTgiStream);
  std::string joined;
  for (const auto& e : events) {
    Decoded d;
    {
      std::string copy = e;  // the payload buffer is gone before the text is read
      d = a->decode_event(copy);
      copy.assign(copy.size(), '#');
    }
    joined += std::string(d.text);
  }
  EXPECT_EQ(joined, " The sky \xc3\xa9t\xc3\xa9\n");
}

}  // namespace
}  // namespace sb::protocol
