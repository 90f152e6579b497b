// The simulator's reasoning replies (text.reasoning_length): the first R tokens are reasoning
// in each API's own form, the usage counts them, and the event streams stay well formed
// (Responses sequence numbers 0, 1, 2, ... without a gap; Anthropic blocks opened before
// their deltas and closed once). APIs without a reasoning field are unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/api.h"

namespace sb::sim {
namespace {

using nlohmann::json;

GenRequest request(ApiKind api, const std::string& body, int64_t reasoning_length) {
  SimConfig c = preset_config("instant");
  c.text.reasoning_length = reasoning_length;
  auto parsed = parse_generate(api, body, c);
  EXPECT_TRUE(std::holds_alternative<GenRequest>(parsed));
  return std::get<GenRequest>(parsed);
}

// Every event's data, parsed, of the whole stream of `req`.
std::vector<json> stream_events(const GenRequest& req) {
  Formatter fm(req, "resp_00ab", 1);
  std::string bytes = fm.stream_start();
  for (int64_t i = 1; i <= req.output_tokens; ++i)
    bytes += fm.token_event(i, i == req.output_tokens);
  bytes += fm.stream_end();
  std::vector<json> events;
  for (size_t at = 0; at < bytes.size();) {
    const size_t end = bytes.find("\n\n", at);
    const std::string event = bytes.substr(at, end - at);
    at = end + 2;
    const size_t data = event.find("data: ");
    const std::string payload = event.substr(data + 6);
    if (payload != "[DONE]") events.push_back(json::parse(payload));
  }
  return events;
}

constexpr const char* kChatBody =
    R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":true,)"
    R"("stream_options":{"include_usage":true}})";

TEST(ReasoningFormat, ChatReasoningContentThenContent) {
  const GenRequest req = request(ApiKind::chat, kChatBody, 3);
  EXPECT_EQ(req.reasoning_tokens, 3);
  const auto events = stream_events(req);
  ASSERT_EQ(events.size(), 1u + 5u + 1u);  // role chunk, 5 tokens, usage
  for (int i = 1; i <= 5; ++i) {
    const json& delta = events[i]["choices"][0]["delta"];
    EXPECT_EQ(delta.contains("reasoning_content"), i <= 3) << delta;
    EXPECT_EQ(delta.contains("content"), i > 3) << delta;
  }
  const json& usage = events.back()["usage"];
  EXPECT_EQ(usage["completion_tokens"], 5);
  EXPECT_EQ(usage["completion_tokens_details"]["reasoning_tokens"], 3);
  // The whole body: message.reasoning_content and content.
  const json body = json::parse(Formatter(req, "chatcmpl-1", 1).full_response());
  EXPECT_EQ(body["choices"][0]["message"]["reasoning_content"].get<std::string>().size(), 12u);
  EXPECT_EQ(body["choices"][0]["message"]["content"].get<std::string>().size(), 8u);
  EXPECT_EQ(body["usage"]["completion_tokens_details"]["reasoning_tokens"], 3);
}

TEST(ReasoningFormat, ResponsesReasoningItemThenMessage) {
  for (int64_t r : {2, 5}) {  // 5 of 5: every token reasoning, the message empty
    const GenRequest req =
        request(ApiKind::responses, R"({"input":"hi","max_output_tokens":5,"stream":true})", r);
    const auto events = stream_events(req);
    std::string reasoning, text;
    for (size_t i = 0; i < events.size(); ++i) {
      const json& e = events[i];
      EXPECT_EQ(e["sequence_number"], i) << e;
      const std::string type = e["type"];
      if (type == "response.reasoning_text.delta") {
        EXPECT_EQ(e["item_id"], "rs_00ab");
        EXPECT_EQ(e["output_index"], 0);
        EXPECT_TRUE(text.empty());
        reasoning += e["delta"].get<std::string>();
      } else if (type == "response.output_text.delta") {
        EXPECT_EQ(e["output_index"], 1);
        text += e["delta"].get<std::string>();
      } else if (type == "response.reasoning_text.done") {
        EXPECT_EQ(e["text"], reasoning);
      }
    }
    EXPECT_EQ(reasoning.size(), static_cast<size_t>(4 * r));
    EXPECT_EQ(text.size(), static_cast<size_t>(4 * (5 - r)));
    const json& last = events.back()["response"];
    EXPECT_EQ(last["usage"]["output_tokens"], 5);
    EXPECT_EQ(last["usage"]["output_tokens_details"]["reasoning_tokens"], r);
    EXPECT_EQ(last["output"][0]["type"], "reasoning");
    EXPECT_EQ(last["output"][0]["content"][0]["text"], reasoning);
    EXPECT_EQ(last["output"][1]["content"][0]["text"], text);
  }
}

TEST(ReasoningFormat, AnthropicThinkingBlockThenText) {
  for (int64_t r : {2, 5}) {
    const GenRequest req =
        request(ApiKind::anthropic,
                R"({"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"stream":true})", r);
    const auto events = stream_events(req);
    std::vector<int> open;  // block indexes started and not stopped
    int thinking = 0, text = 0;
    for (const json& e : events) {
      const std::string type = e["type"];
      if (type == "content_block_start") {
        EXPECT_EQ(e["content_block"]["type"],
                  open.empty() && e["index"] == 0 ? "thinking" : "text");
        open.push_back(e["index"]);
      } else if (type == "content_block_stop") {
        ASSERT_FALSE(open.empty());
        EXPECT_EQ(e["index"], open.back());
        open.pop_back();
      } else if (type == "content_block_delta") {
        ASSERT_FALSE(open.empty());
        EXPECT_EQ(e["index"], open.back());
        const std::string kind = e["delta"]["type"];
        if (kind == "thinking_delta") {
          EXPECT_EQ(e["index"], 0);
          ++thinking;
        } else if (kind == "text_delta") {
          EXPECT_EQ(e["index"], 1);
          ++text;
        }
      } else if (type == "message_delta") {
        EXPECT_EQ(e["usage"]["output_tokens"], 5);  // thinking included
      }
    }
    EXPECT_TRUE(open.empty());
    EXPECT_EQ(thinking, r);
    EXPECT_EQ(text, 5 - r);
    const json body = json::parse(Formatter(req, "msg_1", 1).full_response());
    EXPECT_EQ(body["content"][0]["type"], "thinking");
    EXPECT_EQ(body["content"][0]["thinking"].get<std::string>().size(), static_cast<size_t>(4 * r));
    EXPECT_EQ(body["content"][1]["type"], "text");
  }
}

TEST(ReasoningFormat, ApisWithoutAReasoningFieldAreUnchanged) {
  const GenRequest tgi =
      request(ApiKind::tgi_stream, R"({"inputs":"hi","parameters":{"max_new_tokens":5}})", 3);
  EXPECT_EQ(tgi.reasoning_tokens, 0);
  const GenRequest completions =
      request(ApiKind::completions, R"({"prompt":"hi","max_tokens":5})", 3);
  EXPECT_EQ(completions.reasoning_tokens, 0);
  // Shorter than the reasoning length: every token is reasoning.
  EXPECT_EQ(request(ApiKind::chat, kChatBody, 64).reasoning_tokens, 5);
  // Without reasoning, no completion_tokens_details (the stream as before).
  const auto events = stream_events(request(ApiKind::chat, kChatBody, 0));
  EXPECT_FALSE(events.back()["usage"].contains("completion_tokens_details"));
}

}  // namespace
}  // namespace sb::sim
