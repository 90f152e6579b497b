// TGI's per-request timing headers (router/src/server.rs: x-validation-time, x-queue-time,
// x-inference-time, x-time-per-token, x-total-time, whole milliseconds) and OpenAI usage's
// prompt_tokens_details.cached_tokens.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "protocol/adapter.h"
#include "protocol/timing_headers.h"

namespace sb::protocol {
namespace {

std::optional<ServerTimes> from(const std::map<std::string, std::string>& headers) {
  return tgi_timing_headers([&](std::string_view name) -> std::string_view {
    auto it = headers.find(std::string(name));
    return it == headers.end() ? std::string_view() : std::string_view(it->second);
  });
}

TEST(TgiTimingHeaders, ReadsQueueInferenceAndTotal) {
  const auto t = from({{"x-compute-type", "gpu+optimized"},
                       {"x-validation-time", "1"},
                       {"x-queue-time", "12"},
                       {"x-inference-time", "340"},
                       {"x-time-per-token", "17"},
                       {"x-total-time", "353"}});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->source, ServerTimingSource::tgi_headers);
  EXPECT_DOUBLE_EQ(t->queue_ms, 12);
  EXPECT_DOUBLE_EQ(t->inference_ms, 340);
  EXPECT_DOUBLE_EQ(t->total_ms, 353);
  EXPECT_LT(t->prefill_ms, 0);  // TGI reports prefill and decode only as their sum
  EXPECT_LT(t->decode_ms, 0);
  EXPECT_DOUBLE_EQ(t->compute_ms(), 340);
}

TEST(TgiTimingHeaders, AbsentOrGarbageIsNotReported) {
  EXPECT_FALSE(from({}));
  EXPECT_FALSE(from({{"content-type", "text/event-stream"}}));  // a TGI stream carries none
  EXPECT_FALSE(from({{"x-queue-time", "soon"}, {"x-total-time", "-3"}}));
  EXPECT_FALSE(from({{"x-total-time", "12ms"}}));
  const auto t = from({{"x-total-time", " 7.5 "}, {"x-queue-time", "nan"}});
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->total_ms, 7.5);
  EXPECT_LT(t->queue_ms, 0);
}

TEST(ServerTimes, MergeKeepsWhatEachSourceReported) {
  ServerTimes a;
  a.cached_tokens = 5;
  a.source = ServerTimingSource::openai_usage;
  ServerTimes b;
  b.queue_ms = 3;
  b.total_ms = 10;
  b.source = ServerTimingSource::tgi_headers;
  a.merge(b);
  EXPECT_EQ(a.source, ServerTimingSource::tgi_headers);  // times outrank a cached-token count
  EXPECT_EQ(a.cached_tokens, 5);
  EXPECT_DOUBLE_EQ(a.queue_ms, 3);
  ServerTimes usage;
  usage.cached_tokens = 9;
  usage.source = ServerTimingSource::openai_usage;
  a.merge(usage);
  EXPECT_EQ(a.source, ServerTimingSource::tgi_headers);
  EXPECT_EQ(a.cached_tokens, 9);
  for (auto s : {ServerTimingSource::none, ServerTimingSource::tgi_headers,
                 ServerTimingSource::llamacpp_timings, ServerTimingSource::openai_usage})
    EXPECT_EQ(server_timing_source_from_string(to_string(s)), s);
  EXPECT_FALSE(server_timing_source_from_string("vllm"));
}

TEST(OpenAiUsage, CachedTokensFromPromptTokensDetails) {
  AdapterConfig config;
  config.api = Api::openai_chat;
  config.stream = true;
  auto a = make_adapter(config);
  const auto d = a->decode_event(
      R"({"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":40,)"
      R"("completion_tokens":8,"total_tokens":48,"prompt_tokens_details":{"cached_tokens":32}}})");
  ASSERT_TRUE(d.server_timings);
  EXPECT_EQ(d.server_timings->cached_tokens, 32);
  EXPECT_EQ(d.server_timings->source, ServerTimingSource::openai_usage);
  EXPECT_EQ(d.completion_tokens, 8);
  const auto none =
      a->decode_event(R"({"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":8,)"
                      R"("prompt_tokens_details":null}})");
  EXPECT_FALSE(none.server_timings);
}

}  // namespace
}  // namespace sb::protocol
