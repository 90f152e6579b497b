// Tests of sb::sse::Parser with literal streams split at every byte (docs/architecture.md).
#include "sse/parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "../support/allocation_counter.h"

namespace sb::sse {
namespace {

using namespace std::string_view_literals;

struct OwnedEvent {
  std::string type, data, id;
  bool operator==(const OwnedEvent&) const = default;
};

std::ostream& operator<<(std::ostream& os, const OwnedEvent& e) {
  return os << "{type=" << e.type << " data=" << e.data << " id=" << e.id << "}";
}

struct Outcome {
  std::vector<OwnedEvent> events;
  uint64_t non_sse = 0;
  bool partial = false;
  bool ok = true;
};

// Feeds `chunks` in order to a fresh parser.
Outcome parse_chunks(const std::vector<std::string_view>& chunks,
                     std::size_t max = std::size_t{1} << 20) {
  Parser parser(max);
  Outcome out;
  for (std::string_view chunk : chunks) {
    const FeedResult r = parser.feed(chunk, [&](const Event& e) {
      out.events.push_back({std::string(e.type), std::string(e.data), std::string(e.id)});
    });
    if (r != FeedResult::ok) {
      out.ok = false;
      break;
    }
  }
  EXPECT_EQ(parser.events(), out.events.size());
  out.non_sse = parser.non_sse_lines();
  out.partial = parser.has_partial();
  return out;
}

Outcome parse_whole(std::string_view s) {
  return parse_chunks({s});
}

// Checks that every split of `s` into two chunks, three chunks at a stride, and
// byte-by-byte feeding all give the outcome of the unsplit stream.
void expect_split_invariant(std::string_view s, const Outcome& want) {
  for (std::size_t i = 0; i <= s.size(); ++i) {
    const Outcome got = parse_chunks({s.substr(0, i), s.substr(i)});
    ASSERT_EQ(got.events, want.events) << "split at " << i;
    ASSERT_EQ(got.non_sse, want.non_sse) << "split at " << i;
    ASSERT_EQ(got.partial, want.partial) << "split at " << i;
  }
  for (std::size_t i = 0; i <= s.size(); i += 3) {
    for (std::size_t j = i; j <= s.size(); j += 7) {
      const Outcome got = parse_chunks({s.substr(0, i), s.substr(i, j - i), s.substr(j)});
      ASSERT_EQ(got.events, want.events) << "split at " << i << "," << j;
    }
  }
  std::vector<std::string_view> bytes;
  for (std::size_t i = 0; i < s.size(); ++i) bytes.push_back(s.substr(i, 1));
  const Outcome got = parse_chunks(bytes);
  EXPECT_EQ(got.events, want.events) << "byte by byte";
  EXPECT_EQ(got.non_sse, want.non_sse) << "byte by byte";
  EXPECT_EQ(got.partial, want.partial) << "byte by byte";
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

// TGI /generate_stream: axum's Event::json_data writes "data:" with no space
// (huggingface/text-generation-inference router/src/server.rs, generate_stream).
constexpr std::string_view kTgi =
    "data:{\"index\":1,\"token\":{\"id\":415,\"text\":\" "
    "The\",\"logprob\":-0.47,\"special\":false},"
    "\"generated_text\":null,\"details\":null}\n\n"
    "data:{\"index\":2,\"token\":{\"id\":4216,\"text\":\" "
    "sky\",\"logprob\":-0.9,\"special\":false},"
    "\"generated_text\":null,\"details\":null}\n\n"
    "data:{\"index\":3,\"token\":{\"id\":2,\"text\":\"\",\"logprob\":-0.1,\"special\":true},"
    "\"generated_text\":\" The sky\",\"details\":{\"finish_reason\":\"eos_token\","
    "\"generated_tokens\":3,\"seed\":null,\"input_length\":5}}\n\n";

// vLLM / OpenAI: "data: " with one space, usage chunk, then [DONE]
// (vllm/entrypoints/openai/serving_chat.py chat_completion_stream_generator).
constexpr std::string_view kOpenAi =
    "data: "
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"logprobs\":null,"
    "\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"!\"},\"logprobs\":null,"
    "\"finish_reason\":\"stop\"}]}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"total_tokens\":9,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

// llama.cpp server: "data: " events, errors as a non-standard "error: " line
// (ggml-org/llama.cpp tools/server/server.cpp, handle_completions_impl).
constexpr std::string_view kLlamaCpp =
    "data: {\"content\":\"Hi\",\"stop\":false,\"id_slot\":0,\"multimodal\":false,\"index\":0}\n\n"
    "data: {\"content\":\" "
    "there\",\"stop\":false,\"id_slot\":0,\"multimodal\":false,\"index\":0}\n\n"
    "error: {\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}\n\n";

// Comments (keep-alives), event:/id:/retry: fields, multi-line data.
constexpr std::string_view kFields =
    ": ping\n\n"
    ":\n"
    "retry: 3000\n"
    "event: token\n"
    "id: 7\n"
    "data: first line\n"
    "data:second line\n"
    "data:  two spaces keep one\n\n"
    "event: done\n\n"  // no data field: not dispatched
    "data\n\n"         // a field name alone: data field with an empty value
    "data: after\n"
    "id\n\n"  // empty id resets the last event id
    "id: 9\n\n"
    "id: x\0y\n"  // an id containing NUL is ignored
    "data: nul id ignored\n\n"sv;

TEST(SseParser, TgiStream) {
  const Outcome want = parse_whole(kTgi);
  ASSERT_EQ(want.events.size(), 3u);
  EXPECT_EQ(want.events[0].data.substr(0, 10), "{\"index\":1");
  EXPECT_EQ(want.events[2].data.back(), '}');
  EXPECT_EQ(want.events[0].type, "");
  EXPECT_EQ(want.non_sse, 0u);
  EXPECT_FALSE(want.partial);
  expect_split_invariant(kTgi, want);
}

TEST(SseParser, OpenAiStream) {
  const Outcome want = parse_whole(kOpenAi);
  ASSERT_EQ(want.events.size(), 5u);
  EXPECT_EQ(want.events[4].data, "[DONE]");
  EXPECT_EQ(want.events[1].data.front(), '{');
  EXPECT_EQ(want.non_sse, 0u);
  expect_split_invariant(kOpenAi, want);
}

TEST(SseParser, LlamaCppStreamCountsErrorLineAsNonSse) {
  const Outcome want = parse_whole(kLlamaCpp);
  ASSERT_EQ(want.events.size(), 2u);
  EXPECT_EQ(want.events[1].data.substr(0, 20), "{\"content\":\" there\",");
  EXPECT_EQ(want.non_sse, 1u);
  expect_split_invariant(kLlamaCpp, want);
}

TEST(SseParser, CrLfAndCrOnlyLineEndsGiveTheSameEvents) {
  const Outcome lf = parse_whole(kOpenAi);
  for (std::string_view eol : {"\r\n", "\r"}) {
    const std::string s = replace_all(std::string(kOpenAi), "\n", eol);
    const Outcome got = parse_whole(s);
    EXPECT_EQ(got.events, lf.events);
    expect_split_invariant(s, lf);
  }
  // Mixed line ends in one stream.
  const std::string mixed = "data: a\r\ndata: b\r\rdata: c\n\r\ndata: d\n\n";
  const Outcome want = parse_whole(mixed);
  ASSERT_EQ(want.events.size(), 3u);
  EXPECT_EQ(want.events[0].data, "a\nb");
  EXPECT_EQ(want.events[1].data, "c");
  EXPECT_EQ(want.events[2].data, "d");
  expect_split_invariant(mixed, want);
}

TEST(SseParser, FieldsCommentsAndMultiLineData) {
  const std::string s(kFields.data(), kFields.size());
  const Outcome want = parse_whole(s);
  ASSERT_EQ(want.events.size(), 4u);
  EXPECT_EQ(want.events[0],
            (OwnedEvent{"token", "first line\nsecond line\n two spaces keep one", "7"}));
  EXPECT_EQ(want.events[1], (OwnedEvent{"", "", "7"}));  // type reset, id persists
  EXPECT_EQ(want.events[2], (OwnedEvent{"", "after", ""}));
  EXPECT_EQ(want.events[3], (OwnedEvent{"", "nul id ignored", "9"}));
  EXPECT_EQ(want.non_sse, 0u);
  EXPECT_FALSE(want.partial);
  expect_split_invariant(s, want);
}

TEST(SseParser, NonSseBodyIsCounted) {
  // A JSON error body on a streaming endpoint, without SSE framing.
  const std::string_view body =
      "{\"error\":\"Input validation error\",\"error_type\":\"validation\"}\n";
  const Outcome got = parse_whole(body);
  EXPECT_TRUE(got.events.empty());
  EXPECT_EQ(got.non_sse, 1u);
  expect_split_invariant(body, got);
  const Outcome html = parse_whole("<html>\r\n<body>Bad Gateway</body>\r\n</html>\r\n");
  EXPECT_EQ(html.non_sse, 3u);
  // Unknown field names are ignored but counted.
  const Outcome unknown = parse_whole("foo: bar\ndata: x\n\n");
  ASSERT_EQ(unknown.events.size(), 1u);
  EXPECT_EQ(unknown.non_sse, 1u);
}

TEST(SseParser, HasPartialAfterTruncatedStreams) {
  for (std::string_view s : {kTgi, kOpenAi}) {
    // Positions right after an event's blank line are the only clean cuts.
    std::vector<bool> clean(s.size() + 1, false);
    clean[0] = true;
    for (std::size_t pos = 0; (pos = s.find("\n\n", pos)) != std::string_view::npos; pos += 2)
      clean[pos + 2] = true;
    const std::size_t want_total = parse_whole(s).events.size();
    for (std::size_t i = 0; i <= s.size(); ++i) {
      const Outcome got = parse_chunks({s.substr(0, i)});
      EXPECT_EQ(got.partial, !clean[i]) << "cut at " << i;
      if (i < s.size()) {
        EXPECT_LE(got.events.size(), want_total);
      }
    }
  }
  EXPECT_TRUE(parse_whole("data: [DONE]").partial);
  EXPECT_TRUE(parse_whole("data: [DONE]\n").partial);
  EXPECT_TRUE(parse_whole("event: x\n").partial);
  EXPECT_FALSE(parse_whole("data: [DONE]\n\n").partial);
  EXPECT_FALSE(parse_whole(": ping\n").partial);
  EXPECT_TRUE(parse_whole("data: x\r").partial);  // CR ended the line; the blank line is missing
  EXPECT_FALSE(parse_whole("data: x\r\r").partial);
}

TEST(SseParser, EventDataViewsStayValidDuringCallback) {
  // Many events in one chunk, then one split: data handed out must be exact.
  std::string s;
  for (int i = 0; i < 100; ++i) s += "data: " + std::to_string(i) + "\n\n";
  const Outcome want = parse_whole(s);
  ASSERT_EQ(want.events.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(want.events[i].data, std::to_string(i));
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::string_view> chunks;
    std::string_view rest = s;
    while (!rest.empty()) {
      const std::size_t n = std::min<std::size_t>(rest.size(), 1 + rng() % 40);
      chunks.push_back(rest.substr(0, n));
      rest.remove_prefix(n);
    }
    ASSERT_EQ(parse_chunks(chunks).events, want.events);
  }
}

TEST(SseParser, OversizeEvents) {
  // One line over the limit, whole in a chunk and split at every byte.
  const std::string big = "data: " + std::string(40, 'x') + "\n\n";
  EXPECT_FALSE(parse_chunks({big}, 32).ok);
  for (std::size_t i = 0; i <= big.size(); ++i)
    EXPECT_FALSE(
        parse_chunks({std::string_view(big).substr(0, i), std::string_view(big).substr(i)}, 32).ok)
        << i;
  // Many short data lines adding up to more than the limit.
  std::string lines;
  for (int i = 0; i < 10; ++i) lines += "data: 0123456789\n";
  lines += "\n";
  EXPECT_FALSE(parse_chunks({lines}, 64).ok);
  // The same events under a larger limit pass; small events under a small one pass.
  EXPECT_TRUE(parse_chunks({lines}, 1024).ok);
  EXPECT_TRUE(parse_chunks({"data: 0123456789\n\ndata: 0123456789\n\n"}, 32).ok);
  // An unterminated line that grows over the limit across chunks.
  Parser p(16);
  auto ignore = [](const Event&) {};
  EXPECT_EQ(p.feed("data: 0123", ignore), FeedResult::ok);
  EXPECT_EQ(p.feed("456789abcdef", ignore), FeedResult::event_too_large);
  EXPECT_EQ(p.feed("\n\n", ignore), FeedResult::event_too_large);  // unusable until reset
  p.reset();
  int n = 0;
  EXPECT_EQ(p.feed("data: ok\n\n", [&](const Event&) { ++n; }), FeedResult::ok);
  EXPECT_EQ(n, 1);
}

TEST(SseParser, ResetClearsState) {
  Parser p;
  auto ignore = [](const Event&) {};
  ASSERT_EQ(p.feed("id: 5\ndata: x\n\nfoo\ndata: partial", ignore), FeedResult::ok);
  EXPECT_EQ(p.events(), 1u);
  EXPECT_EQ(p.non_sse_lines(), 1u);
  EXPECT_TRUE(p.has_partial());
  p.reset();
  EXPECT_EQ(p.events(), 0u);
  EXPECT_EQ(p.non_sse_lines(), 0u);
  EXPECT_FALSE(p.has_partial());
  std::string id = "unset";
  ASSERT_EQ(p.feed("data: y\n\n", [&](const Event& e) { id = std::string(e.id); }), FeedResult::ok);
  EXPECT_EQ(id, "");
}

// A direct transcription of WHATWG's event-stream interpretation over a whole
// stream, to compare the incremental parser against on random streams.
std::vector<OwnedEvent> reference_parse(std::string_view s) {
  std::vector<std::string> lines;
  std::string line;  // an unterminated last line is never processed
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\r' || c == '\n') {
      lines.push_back(line);
      line.clear();
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      line.push_back(c);
    }
  }
  std::vector<OwnedEvent> out;
  std::string data, type, last_id;
  bool has_data = false;
  for (const std::string& l : lines) {
    if (l.empty()) {
      if (has_data) out.push_back({type, data, last_id});
      data.clear();
      type.clear();
      has_data = false;
      continue;
    }
    if (l[0] == ':') continue;
    const std::size_t colon = l.find(':');
    std::string name = l.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : l.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (name == "data") {
      if (has_data) data += '\n';
      data += value;
      has_data = true;
    } else if (name == "event") {
      type = value;
    } else if (name == "id") {
      if (value.find('\0') == std::string::npos) last_id = value;
    }
  }
  return out;
}

TEST(SseParser, RandomStreamsMatchReference) {
  const std::vector<std::string> pieces = {
      "data:", "data: ", "data", "event: e",  "event:",   "id: 1",   "id:", "retry: 5",
      ": c",   ":",      "x",    "{\"a\":1}", " ",        "\n",      "\r",  "\r\n",
      "\n\n",  "\r\r",   "da",   "ta: y",     "foo: bar", "\r\n\r\n"};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string s;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    const std::vector<OwnedEvent> want = reference_parse(s);
    ASSERT_EQ(parse_whole(s).events, want) << "stream: " << s;
    std::vector<std::string_view> chunks;
    std::string_view rest = s;
    while (!rest.empty()) {
      const std::size_t k = std::min<std::size_t>(rest.size(), 1 + rng() % 8);
      chunks.push_back(rest.substr(0, k));
      rest.remove_prefix(k);
    }
    ASSERT_EQ(parse_chunks(chunks).events, want) << "stream: " << s;
  }
}

TEST(SseParser, NoAllocationPerEventOnceWarm) {
  if (!SB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  Parser parser;
  uint64_t seen = 0;
  auto count = [&](const Event& e) { seen += e.data.size(); };
  // Warm up the buffers with the split patterns used below.
  for (std::size_t i = 0; i <= kOpenAi.size(); ++i) {
    parser.feed(kOpenAi.substr(0, i), count);
    parser.feed(kOpenAi.substr(i), count);
  }
  const uint64_t before = testing::allocations();
  for (int round = 0; round < 100; ++round) {
    ASSERT_EQ(parser.feed(kOpenAi, count), FeedResult::ok);  // fast path: views, no copies
    ASSERT_EQ(parser.feed(kFields, count), FeedResult::ok);
  }
  for (std::size_t i = 0; i <= kOpenAi.size(); ++i) {  // slow path: reused buffers
    parser.feed(kOpenAi.substr(0, i), count);
    parser.feed(kOpenAi.substr(i), count);
  }
  EXPECT_EQ(testing::allocations(), before);
  EXPECT_GT(seen, 0u);
}

}  // namespace
}  // namespace sb::sse
