// OpenAI completions and chat adapters. Byte formats follow:
// - vLLM vllm/entrypoints/openai/serving_completion.py and serving_chat.py:
//   chunks framed "data: {json}\n\n", a first chat chunk carrying only the role
//   (delta {"role":"assistant","content":""}), with stream_options.include_usage a
//   last chunk {"choices":[],"usage":{...}}, then "data: [DONE]\n\n"; errors in
//   the stream as create_streaming_error_response(): {"error":{"message","type",
//   "param","code"}} (older releases: ErrorResponse {"object":"error","message",
//   "type","param","code"}), followed by [DONE];
// - vLLM vllm/entrypoints/openai/protocol.py: ChatCompletionRequest has
//   max_tokens (deprecated alias), max_completion_tokens and ignore_eos, and
//   rejects stream_options without stream (validate_stream_options);
// - ggml-org/llama.cpp tools/server/server.cpp (OpenAI-compatible chat): a
//   first chunk with delta {"role":"assistant","content":null}, reasoning models
//   stream delta.reasoning_content, and the last chunk carries finish_reason,
//   an empty delta, usage and timings together, then [DONE].
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "protocol/adapter.h"
#include "transcript.h"

namespace sb::protocol {
namespace {

using testing::sse_payloads;

std::unique_ptr<Adapter> make(Api api, bool stream = true, std::string model = "m") {
  AdapterConfig config;
  config.api = api;
  config.stream = stream;
  config.model = std::move(model);
  return make_adapter(config);
}

// vLLM /v1/completions, stream with include_usage.
constexpr std::string_view kVllmCompletions =
    "data: {\"id\":\"cmpl-3f0a\",\"object\":\"text_completion\",\"created\":1733140000,"
    "\"model\":\"facebook/opt-125m\",\"choices\":[{\"index\":0,\"text\":\" San\",\"logprobs\":null,"
    "\"finish_reason\":null,\"stop_reason\":null}]}\n\n"
    "data: {\"id\":\"cmpl-3f0a\",\"object\":\"text_completion\",\"created\":1733140000,"
    "\"model\":\"facebook/opt-125m\",\"choices\":[{\"index\":0,\"text\":\" Francisco\","
    "\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n"
    "data: {\"id\":\"cmpl-3f0a\",\"object\":\"text_completion\",\"created\":1733140000,"
    "\"model\":\"facebook/opt-125m\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
    "\"total_tokens\":7,\"completion_tokens\":2,\"prompt_tokens_details\":null}}\n\n"
    "data: [DONE]\n\n";

// vLLM /v1/chat/completions, stream with include_usage.
constexpr std::string_view kVllmChat =
    "data: {\"id\":\"chatcmpl-9b2\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
    "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
    "\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9b2\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
    "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\"Hello\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9b2\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
    "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\" there\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9b2\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
    "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\"\"},\"logprobs\":null,\"finish_reason\":\"stop\",\"stop_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9b2\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
    "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[],\"usage\":{\"prompt_tokens\":17,"
    "\"total_tokens\":20,\"completion_tokens\":3}}\n\n"
    "data: [DONE]\n\n";

// llama.cpp server /v1/chat/completions with a reasoning model.
constexpr std::string_view kLlamaCppChat =
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"content\":null}}],\"created\":1762593253,\"id\":\"chatcmpl-DHv\",\"model\":\"gpt-oss:20b\","
    "\"system_fingerprint\":\"b6881-8b11deea4\",\"object\":\"chat.completion.chunk\"}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"reasoning_content\":"
    "\"We\"}}],\"created\":1762593253,\"id\":\"chatcmpl-DHv\",\"model\":\"gpt-oss:20b\","
    "\"system_fingerprint\":\"b6881-8b11deea4\",\"object\":\"chat.completion.chunk\"}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"Hi!\"}}],"
    "\"created\":1762593253,\"id\":\"chatcmpl-DHv\",\"model\":\"gpt-oss:20b\","
    "\"system_fingerprint\":\"b6881-8b11deea4\",\"object\":\"chat.completion.chunk\"}\n\n"
    "data: {\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],\"created\":"
    "1762593253,\"id\":\"chatcmpl-DHv\",\"model\":\"gpt-oss:20b\",\"system_fingerprint\":"
    "\"b6881-8b11deea4\",\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":"
    "247,\"prompt_tokens\":1085,\"total_tokens\":1332},\"timings\":{\"prompt_n\":1085,"
    "\"prompt_ms\":203.378,\"predicted_n\":247,\"predicted_per_second\":264.55}}\n\n"
    "data: [DONE]\n\n";

// ---- request bodies ----

TEST(OpenAiAdapter, DefaultPaths) {
  EXPECT_EQ(make(Api::openai)->default_path(), "/v1/completions");
  EXPECT_EQ(make(Api::openai_chat)->default_path(), "/v1/chat/completions");
}

TEST(OpenAiAdapter, CompletionsBodyStreaming) {
  const auto body = nlohmann::json::parse(make(Api::openai)->build_body({"Say \"hi\"\n", "", 64}));
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["prompt"], "Say \"hi\"\n");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_FALSE(body.contains("ignore_eos"));
  EXPECT_FALSE(body.contains("messages"));
}

TEST(OpenAiAdapter, CompletionsBodyNotStreamingHasNoStreamOptions) {
  const auto body = nlohmann::json::parse(make(Api::openai, false, "")->build_body({"x", "", 0}));
  EXPECT_EQ(body["stream"], false);
  EXPECT_FALSE(body.contains("stream_options"));  // vLLM rejects it without stream
  EXPECT_FALSE(body.contains("model"));           // empty model: omitted
  EXPECT_FALSE(body.contains("max_tokens"));      // <= 0: server default
}

TEST(OpenAiAdapter, IgnoreEosAndExtraBody) {
  AdapterConfig config;
  config.api = Api::openai_chat;
  config.model = "m";
  config.ignore_eos = true;
  config.extra_body = {{"temperature", 0},
                       {"stream_options", {{"continuous_usage_stats", true}}},
                       {"model", "override"}};
  const auto body = nlohmann::json::parse(make_adapter(config)->build_body({"x", "", 8}));
  EXPECT_EQ(body["ignore_eos"], true);
  EXPECT_EQ(body["temperature"], 0);
  EXPECT_EQ(body["model"], "override");
  EXPECT_EQ(body["stream_options"]["include_usage"], true);  // merge patch keeps siblings
  EXPECT_EQ(body["stream_options"]["continuous_usage_stats"], true);
}

TEST(OpenAiAdapter, ExtraBodyMustBeAnObject) {
  AdapterConfig config;
  config.api = Api::openai;
  config.extra_body = nlohmann::json::array({1, 2});
  try {
    make_adapter(config);
    FAIL() << "expected a usage error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("extra_body"), std::string::npos);
  }
}

TEST(OpenAiChatAdapter, BodyWrapsPromptInOneUserMessage) {
  const auto body = nlohmann::json::parse(
      make(Api::openai_chat)->build_body({"caf\xc3\xa9 \"quoted\"\n", "", 32}));
  ASSERT_TRUE(body["messages"].is_array());
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "caf\xc3\xa9 \"quoted\"\n");
  EXPECT_EQ(body["max_tokens"], 32);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_FALSE(body.contains("prompt"));
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
}

TEST(OpenAiChatAdapter, BodyUsesMessagesJsonVerbatim) {
  const std::string messages =
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},)"
      R"({"role":"assistant","content":"Hello"},{"role":"user","content":"Bye"}])";
  const auto body =
      nlohmann::json::parse(make(Api::openai_chat)->build_body({"ignored", messages, 16}));
  EXPECT_EQ(body["messages"], nlohmann::json::parse(messages));
  EXPECT_THROW(make(Api::openai_chat)->build_body({"", "{\"role\":\"user\"}", 16}), Error);
  EXPECT_THROW(make(Api::openai_chat)->build_body({"", "[{", 16}), Error);
}

TEST(OpenAiChatAdapter, MaxCompletionTokensSwitch) {
  AdapterConfig config;
  config.api = Api::openai_chat;
  config.max_completion_tokens = true;
  const auto body = nlohmann::json::parse(make_adapter(config)->build_body({"x", "", 100}));
  EXPECT_EQ(body["max_completion_tokens"], 100);
  EXPECT_FALSE(body.contains("max_tokens"));  // never both: OpenAI reasoning models reject it
}

TEST(OpenAiAdapter, InvalidUtf8InPromptIsReplacedNotThrown) {
  const std::string body = make(Api::openai)->build_body({"bad \xff byte", "", 1});
  EXPECT_EQ(nlohmann::json::parse(body)["prompt"], "bad \xef\xbf\xbd byte");
}

// The plain body (no JSON tree: protocol/openai_common.h) is byte for byte the tree's dump, for
// every combination of the fields it writes and prompts that need escaping.
TEST(OpenAiAdapter, PlainBodyIsTheTreeBytes) {
  const std::vector<std::string> prompts = {"", "Request 7: The quiet river.",
                                            "tab\there \"q\" back\\slash \x01 \x1f \x7f",
                                            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 end\n"};
  int checked = 0;
  for (const Api api : {Api::openai, Api::openai_chat})
    for (const bool stream : {true, false})
      for (const std::string model : {"", "org/m\"x"})
        for (const bool ignore_eos : {false, true})
          for (const bool completion_field : {false, true})
            for (const int64_t max_tokens : {0, 64})
              for (const std::optional<int64_t> priority : {std::optional<int64_t>(), {-3}})
                for (const std::string& text : prompts) {
                  AdapterConfig config;
                  config.api = api;
                  config.stream = stream;
                  config.model = model;
                  config.ignore_eos = ignore_eos;
                  config.max_completion_tokens = completion_field;
                  const bool chat = api == Api::openai_chat;
                  nlohmann::json tree = nlohmann::json::object();
                  if (chat)
                    tree["messages"] =
                        nlohmann::json::array({{{"role", "user"}, {"content", text}}});
                  else
                    tree["prompt"] = text;
                  if (max_tokens > 0)
                    tree[chat && completion_field ? "max_completion_tokens" : "max_tokens"] =
                        max_tokens;
                  if (priority) tree["priority"] = *priority;
                  if (!model.empty()) tree["model"] = model;
                  tree["stream"] = stream;
                  if (stream) tree["stream_options"] = {{"include_usage", true}};
                  if (ignore_eos) tree["ignore_eos"] = true;
                  Prompt prompt{text, "", max_tokens};
                  prompt.priority = priority;
                  ASSERT_EQ(make_adapter(config)->build_body(prompt), tree.dump())
                      << to_string(api) << " stream " << stream << " model '" << model << "'";
                  ++checked;
                }
  EXPECT_EQ(checked, 2 * 2 * 2 * 2 * 2 * 2 * 2 * 4);
}

// ---- decoding ----

TEST(OpenAiAdapter, DecodeVllmCompletionsStream) {
  auto a = make(Api::openai);
  const auto events = sse_payloads(kVllmCompletions);
  ASSERT_EQ(events.size(), 4u);
  Decoded d = a->decode_event(events[0]);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, " San");
  EXPECT_EQ(d.content_chars, 4u);
  EXPECT_EQ(d.tokens, 0u);
  EXPECT_FALSE(d.final);
  d = a->decode_event(events[1]);
  EXPECT_EQ(d.text, " Francisco");
  EXPECT_FALSE(d.final);  // finish_reason is not the end of the stream: [DONE] is
  d = a->decode_event(events[2]);
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 2);
  EXPECT_FALSE(d.completion_tokens_from_details);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 5);
  d = a->decode_event(events[3]);
  EXPECT_TRUE(d.final);
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.error, ErrorClass::ok);
}

TEST(OpenAiChatAdapter, DecodeVllmChatStream) {
  auto a = make(Api::openai_chat);
  const auto events = sse_payloads(kVllmChat);
  ASSERT_EQ(events.size(), 6u);
  Decoded d = a->decode_event(events[0]);  // role-only first chunk: not a token
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.content_chars, 0u);
  d = a->decode_event(events[1]);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, "Hello");
  EXPECT_EQ(d.content_chars, 5u);
  EXPECT_EQ(d.reasoning_chars, 0u);
  d = a->decode_event(events[2]);
  EXPECT_EQ(d.text, " there");
  d = a->decode_event(events[3]);  // empty content with finish_reason
  EXPECT_FALSE(d.text_event);
  EXPECT_FALSE(d.final);
  d = a->decode_event(events[4]);  // usage chunk, choices []
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 3);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 17);
  d = a->decode_event(events[5]);
  EXPECT_TRUE(d.final);
}

TEST(OpenAiChatAdapter, DecodeLlamaCppChatStream) {
  auto a = make(Api::openai_chat);
  const auto events = sse_payloads(kLlamaCppChat);
  ASSERT_EQ(events.size(), 5u);
  Decoded d = a->decode_event(events[0]);  // role with content null
  EXPECT_FALSE(d.text_event);
  d = a->decode_event(events[1]);  // reasoning only: a text event without output text
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 2u);
  EXPECT_EQ(d.content_chars, 0u);
  EXPECT_EQ(d.text, "");
  d = a->decode_event(events[2]);
  EXPECT_EQ(d.text, "Hi!");
  EXPECT_EQ(d.reasoning_chars, 0u);
  d = a->decode_event(events[3]);  // finish_reason + empty delta + usage in one chunk
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 247);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 1085);
  EXPECT_TRUE(a->decode_event(events[4]).final);
}

TEST(OpenAiChatAdapter, UsageChunkWithChoicesEmptyNullOrAbsent) {
  auto a = make(Api::openai_chat);
  for (
      std::string_view chunk :
      {R"({"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":9,"total_tokens":13}})",
       R"({"id":"x","object":"chat.completion.chunk","choices":null,"usage":{"prompt_tokens":4,"completion_tokens":9,"total_tokens":13}})",
       R"({"id":"x","object":"chat.completion.chunk","usage":{"prompt_tokens":4,"completion_tokens":9,"total_tokens":13}})",
       R"({"usage":{"completion_tokens":9,"prompt_tokens":4},"choices":[]})"}) {
    const Decoded d = a->decode_event(chunk);
    EXPECT_FALSE(d.text_event) << chunk;
    EXPECT_FALSE(d.final) << chunk;
    EXPECT_EQ(d.completion_tokens.value_or(-1), 9) << chunk;
    EXPECT_EQ(d.prompt_tokens.value_or(-1), 4) << chunk;
    EXPECT_EQ(d.error, ErrorClass::ok) << chunk;
  }
  // usage null on ordinary chunks (continuous_usage_stats off) is not a count.
  const Decoded d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":null})");
  EXPECT_TRUE(d.text_event);
  EXPECT_FALSE(d.completion_tokens);
}

TEST(OpenAiChatAdapter, ReasoningDeltas) {
  auto a = make(Api::openai_chat);
  Decoded d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"reasoning_content":"Let me think","content":null}}]})");
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 12u);
  EXPECT_EQ(d.content_chars, 0u);
  d = a->decode_event(R"({"choices":[{"index":0,"delta":{"reasoning":"Hmm"}}]})");
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.reasoning_chars, 3u);
  // Servers sending both fields send the same text twice: counted once.
  d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"reasoning":"abc","reasoning_content":"abc"}}]})");
  EXPECT_EQ(d.reasoning_chars, 3u);
  // Content and reasoning in one delta.
  d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"content":"ok","reasoning_content":"why"}}]})");
  EXPECT_EQ(d.text, "ok");
  EXPECT_EQ(d.content_chars, 2u);
  EXPECT_EQ(d.reasoning_chars, 3u);
  // Empty reasoning and empty content: nothing.
  d = a->decode_event(R"({"choices":[{"index":0,"delta":{"content":"","reasoning_content":""}}]})");
  EXPECT_FALSE(d.text_event);
}

TEST(OpenAiChatAdapter, ToolCallOnlyDeltaIsNotText) {
  auto a = make(Api::openai_chat);
  const Decoded d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}}]})");
  EXPECT_FALSE(d.text_event);
  EXPECT_EQ(d.error, ErrorClass::ok);
}

TEST(OpenAiChatAdapter, OnlyFirstChoiceCounts) {
  auto a = make(Api::openai_chat);
  const Decoded d = a->decode_event(
      R"({"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"bbb"}}]})");
  EXPECT_EQ(d.text, "a");
}

TEST(OpenAiAdapter, InStreamErrors) {
  auto a = make(Api::openai_chat);
  struct Case {
    std::string_view json;
    ErrorClass want;
    std::string_view message;
  };
  const Case cases[] = {
      // vLLM (current): {"error": ErrorInfo}
      {R"({"error":{"message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}})",
       ErrorClass::validation, "This model's maximum context length is 4096 tokens."},
      // vLLM (older): ErrorResponse at top level
      {R"({"object":"error","message":"The engine is overloaded","type":"ServiceUnavailableError","param":null,"code":503})",
       ErrorClass::overloaded, "The engine is overloaded"},
      {R"({"object":"error","message":"boom","type":"InternalServerError","param":null,"code":500})",
       ErrorClass::server_error, "boom"},
      // OpenAI: string codes
      {R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
       ErrorClass::rate_limited, "Rate limit reached"},
      {R"({"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}})",
       ErrorClass::server_error, "The server had an error"},
      {R"({"error":{"message":"x","code":"429"}})", ErrorClass::rate_limited, "x"},
      // llama.cpp error object
      {R"({"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}})",
       ErrorClass::validation, "the request exceeds the available context size"},
      {R"({"error":"plain string"})", ErrorClass::server_error, "plain string"},
  };
  for (const Case& c : cases) {
    const Decoded d = a->decode_event(c.json);
    EXPECT_EQ(d.error, c.want) << c.json;
    EXPECT_EQ(d.error_message, c.message) << c.json;
    EXPECT_FALSE(d.text_event) << c.json;
  }
  // A vLLM stream that fails: error chunk, then [DONE].
  const auto events = sse_payloads(
      "data: {\"error\": {\"message\": \"Engine loop has died\", \"type\": "
      "\"InternalServerError\", "
      "\"param\": null, \"code\": 500}}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(a->decode_event(events[0]).error, ErrorClass::server_error);
  EXPECT_TRUE(a->decode_event(events[1]).final);
}

TEST(OpenAiAdapter, MalformedJson) {
  for (Api api : {Api::openai, Api::openai_chat}) {
    auto a = make(api);
    for (std::string_view bad : {R"({"choices":[{"index":0,"delta":{"content":"Hel)",
                                 R"({"choices":[}])", "[DONE", "42", "[1,2]", "", "data: {}"}) {
      const Decoded d = a->decode_event(bad);
      EXPECT_EQ(d.error, ErrorClass::malformed) << bad;
      EXPECT_FALSE(d.error_message.empty()) << bad;
      EXPECT_FALSE(d.text_event) << bad;
      EXPECT_FALSE(d.final) << bad;
    }
    EXPECT_TRUE(a->decode_event(" [DONE] ").final);
  }
}

TEST(OpenAiAdapter, DecodeBodies) {
  auto completions = make(Api::openai, false);
  Decoded d = completions->decode_body(
      R"({"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" Paris.","logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":6,"total_tokens":8,"completion_tokens":2}})");
  EXPECT_TRUE(d.final);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, " Paris.");
  EXPECT_EQ(d.completion_tokens.value_or(-1), 2);
  EXPECT_EQ(d.prompt_tokens.value_or(-1), 6);

  auto chat = make(Api::openai_chat, false);
  d = chat->decode_body(
      R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi \u2014 there","reasoning_content":"greet","tool_calls":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"total_tokens":14,"completion_tokens":4}})");
  EXPECT_TRUE(d.final);
  EXPECT_TRUE(d.text_event);
  EXPECT_EQ(d.text, "Hi \xe2\x80\x94 there");
  EXPECT_EQ(d.reasoning_chars, 5u);
  EXPECT_EQ(d.completion_tokens.value_or(-1), 4);
  // A body with an empty answer is final but not a text event.
  d = chat->decode_body(R"({"choices":[{"index":0,"message":{"role":"assistant","content":""}}]})");
  EXPECT_TRUE(d.final);
  EXPECT_FALSE(d.text_event);
}

TEST(OpenAiAdapter, TextViewSurvivesTheInputBuffer) {
  auto a = make(Api::openai_chat);
  Decoded d;
  {
    std::string chunk = R"({"choices":[{"index":0,"delta":{"content":"tok\"en"}}]})";
    d = a->decode_event(chunk);
    chunk.assign(chunk.size(), '#');
  }
  EXPECT_EQ(d.text, "tok\"en");
}

}  // namespace
}  // namespace sb::protocol
