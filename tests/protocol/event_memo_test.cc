// EventMemo: an event decoded through the memo is the event decoded whole, field by field,
// for every payload (the memo's hits checked against a fresh adapter's decoding), and the memo
// does hit on the streams servers write.
#include "protocol/event_memo.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace sb::protocol {
namespace {

std::unique_ptr<Adapter> make(Api api) {
  AdapterConfig config;
  config.api = api;
  config.model = "m";
  return make_adapter(config);
}

// Every field of Decoded but text_offset (where the text lies is the memo's own business).
void expect_same(const Decoded& got, const Decoded& want, const std::string& payload) {
  SCOPED_TRACE(payload);
  EXPECT_EQ(got.content_chars, want.content_chars);
  EXPECT_EQ(got.reasoning_chars, want.reasoning_chars);
  EXPECT_EQ(got.text_event, want.text_event);
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.final, want.final);
  EXPECT_EQ(got.completion_tokens, want.completion_tokens);
  EXPECT_EQ(got.completion_tokens_from_details, want.completion_tokens_from_details);
  EXPECT_EQ(got.prompt_tokens, want.prompt_tokens);
  EXPECT_EQ(got.reasoning_tokens, want.reasoning_tokens);
  EXPECT_EQ(got.error, want.error);
  EXPECT_EQ(got.error_message, want.error_message);
  EXPECT_EQ(got.text, want.text);
  EXPECT_EQ(got.server_timings.has_value(), want.server_timings.has_value());
  EXPECT_EQ(got.items, want.items);
}

// Decodes `payloads` in order as the recorder does (memo first, else whole and learn), and
// each again with a second adapter that never sees the memo; returns the memo's hits.
int check_stream(Api api, const std::vector<std::string>& payloads) {
  auto streamed = make(api);
  auto whole = make(api);
  EventMemo memo;
  int hits = 0;
  for (const std::string& p : payloads) {
    const Decoded want = whole->decode_event(p);
    Decoded got;
    if (const auto text = memo.match(p)) {
      ++hits;
      got = decoded_text(*text);
    } else {
      got = streamed->decode_event(p);
      memo.learn(p, got);
    }
    expect_same(got, want, p);
    if (::testing::Test::HasFailure()) break;
  }
  return hits;
}

std::string vllm_completion(std::string_view text_json, std::string_view finish = "null") {
  return fmt::format(
      "{{\"id\":\"cmpl-3f0a\",\"object\":\"text_completion\",\"created\":1733140000,"
      "\"model\":\"m\",\"choices\":[{{\"index\":0,\"text\":{},\"logprobs\":null,"
      "\"finish_reason\":{},\"stop_reason\":null}}],\"usage\":null}}",
      text_json, finish);
}

std::string vllm_chat(std::string_view content_json) {
  return fmt::format(
      "{{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
      "\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}},\"logprobs\":null,"
      "\"finish_reason\":null}}]}}",
      content_json);
}

TEST(EventMemo, AVllmStreamDecodesItsMiddleEventsWithoutParsing) {
  std::vector<std::string> stream;
  for (const char* word : {"\" San\"", "\" Francisco\"", "\" is\"", "\"\"", "\" a\"", "\" city\""})
    stream.push_back(vllm_completion(word));
  stream.push_back(vllm_completion("\".\"", "\"length\""));
  stream.push_back(
      "{\"id\":\"cmpl-3f0a\",\"object\":\"text_completion\",\"created\":1733140000,\"model\":"
      "\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"total_tokens\":12,"
      "\"completion_tokens\":7}}");
  stream.push_back("[DONE]");
  // The first event is learned, the next five hit (the empty text too: not a text event),
  // the last three (finish_reason, usage, [DONE]) are decoded whole.
  EXPECT_EQ(check_stream(Api::openai, stream), 5);
}

TEST(EventMemo, AChatStreamHitsOnItsContentDeltas) {
  std::vector<std::string> stream = {
      "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
      "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":"
      "\"\"},\"logprobs\":null,\"finish_reason\":null}]}"};
  for (const char* word : {"\"Hello\"", "\" wor\"", "\"ld\"", "\"\\u00e9\"", "\" \xc3\xa9\""})
    stream.push_back(vllm_chat(word));
  // The role chunk's bytes differ from a content chunk's: learned from the first content
  // chunk; the escaped text is decoded whole; the UTF-8 one hits.
  EXPECT_EQ(check_stream(Api::openai_chat, stream), 3);
}

TEST(EventMemo, TextThatWouldChangeTheJsonIsDecodedWhole) {
  const std::vector<std::string> texts = {
      "\"a\\\"b\"",            // an escaped quote: the text is not its bytes
      "\"a\\\\\"",             // an escaped backslash
      "\"tab\there\"",         // a raw control character: not JSON (simdjson's verdict stands)
      "\"\xff\xfe\"",          // invalid UTF-8: malformed
      "\"\xc3\"",              // a truncated UTF-8 sequence
      "\"x\",\"text\":\"y\"",  // a payload that adds a key after the text (different bytes)
      "\"ok\"",
  };
  std::vector<std::string> stream = {vllm_completion("\"first\"")};
  for (const std::string& t : texts) {
    stream.push_back(vllm_completion(t));
    stream.push_back(vllm_completion("\"again\""));
  }
  // The seven middles and the seven "again" events; only the plain ones may hit.
  EXPECT_EQ(check_stream(Api::openai, stream), 7);
}

TEST(EventMemo, RandomStreamsDecodeAsWholeDecodingDoes) {
  std::mt19937_64 rng(20261207);
  const std::vector<std::string> pieces = {"a",
                                           " ",
                                           "token",
                                           "\xc3\xa9",
                                           "\xe2\x82\xac",
                                           "\xf0\x9f\x98\x80",
                                           "\\n",
                                           "\\\"",
                                           "\\\\",
                                           "\\u00e9",
                                           "\x01",
                                           "\x7f",
                                           "\xff",
                                           "\xc3",
                                           "{",
                                           "}",
                                           "[",
                                           "]",
                                           ",",
                                           ":",
                                           "\"",
                                           "\\"};
  std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1);
  int hits = 0;
  for (int s = 0; s < 300; ++s) {
    std::vector<std::string> stream;
    for (int e = 0; e < 12; ++e) {
      std::string text = "\"";
      const size_t n = rng() % 4;
      for (size_t i = 0; i < n; ++i) text += pieces[piece(rng)];
      text += '"';
      const unsigned shape = static_cast<unsigned>(rng() % 10);
      if (shape == 0) {
        stream.push_back(vllm_completion(text, "\"stop\""));
      } else if (shape == 1) {
        stream.push_back(vllm_completion(text) + " ");  // trailing space: other bytes
      } else if (shape == 2) {
        stream.push_back(vllm_chat(text));  // another shape (its text key is not "text")
      } else if (shape == 3) {
        stream.push_back(text);  // a bare string: not an object
      } else {
        stream.push_back(vllm_completion(text));
      }
    }
    hits += check_stream(Api::openai, stream);
    if (HasFailure()) break;
  }
  EXPECT_GT(hits, 300);  // the memo was exercised, not only bypassed
}

TEST(EventMemo, AReasoningPreambleDoesNotStopTheMemo) {
  // A reasoning model's stream: many reasoning deltas (not learned: not plain text), then
  // content deltas, which still hit.
  std::vector<std::string> stream;
  for (int i = 0; i < 8; ++i)
    stream.push_back(
        "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,"
        "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hmm\"},"
        "\"logprobs\":null,\"finish_reason\":null}]}");
  for (const char* word : {"\"The\"", "\" answer\"", "\" is\"", "\" 4\""})
    stream.push_back(vllm_chat(word));
  EXPECT_EQ(check_stream(Api::openai_chat, stream), 3);
}

TEST(EventMemo, AServerWhoseChunksAllDifferIsCopiedOnlyAFewTimes) {
  // Every chunk carries another "created": each is learnable, none matches the one before.
  auto adapter = make(Api::openai);
  const auto chunk = [](int created, std::string_view text) {
    return fmt::format(
        "{{\"id\":\"x\",\"created\":{},\"choices\":[{{\"index\":0,\"text\":\"{}\"}}]}}", created,
        text);
  };
  EventMemo memo;
  for (int i = 0; i < 12; ++i) {
    const std::string p = chunk(i, "a");
    EXPECT_FALSE(memo.match(p));
    memo.learn(p, adapter->decode_event(p));
  }
  // Learning stopped after four copies: the memo still holds the fourth chunk.
  EXPECT_FALSE(memo.match(chunk(11, "b")));
  EXPECT_EQ(memo.match(chunk(3, "b")), std::optional<std::string_view>("b"));
}

TEST(EventMemo, AnAdapterThatDoesNotPlaceItsTextNeverLearns) {
  // TGI's events differ in their token id and logprob; its adapter sets no text_offset.
  std::vector<std::string> stream;
  for (int i = 0; i < 6; ++i)
    stream.push_back(fmt::format(
        "{{\"index\":{},\"token\":{{\"id\":{},\"text\":\" x\",\"logprob\":-0.5,\"special\":false}},"
        "\"generated_text\":null,\"details\":null}}",
        i, 100 + i));
  EXPECT_EQ(check_stream(Api::tgi, stream), 0);
}

TEST(EventMemo, ResetForgetsTheLearnedEvent) {
  auto adapter = make(Api::openai);
  EventMemo memo;
  const std::string a = vllm_completion("\"a\"");
  memo.learn(a, adapter->decode_event(a));
  const std::string b = vllm_completion("\"b\"");
  EXPECT_EQ(memo.match(b), std::optional<std::string_view>("b"));
  memo.reset();
  EXPECT_FALSE(memo.match(b));
}

}  // namespace
}  // namespace sb::protocol
