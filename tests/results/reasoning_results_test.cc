// Reasoning requests through the result files: requests.jsonl writes reasoning_tokens, its
// source and reasoning_ms (TTFO - TTFT) and reads them back; summary.json has the
// reasoning_tokens and reasoning_ms distributions only when some request reasoned, and the
// typed reader gives them back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "metrics/run_summary.h"
#include "results/request_jsonl.h"
#include "results/summary_json.h"
#include "results/summary_read.h"

namespace sb::results {
namespace {

using metrics::RequestRecord;
using metrics::TokenSource;

constexpr int64_t kMs = 1'000'000;

// Sent at 1 s; first reasoning at +50 ms, first content at +50 + reasoning ms, last at +300.
RequestRecord record(uint64_t id, int64_t reasoning_tokens, int64_t reasoning_ms) {
  RequestRecord r;
  r.id = id;
  r.status = 200;
  r.t_sched_ns = 1000 * kMs;
  r.t_send_ns = 1000 * kMs;
  r.t_first_ns = 1050 * kMs;
  r.t_first_content_ns = r.t_first_ns + reasoning_ms * kMs;
  r.t_last_ns = r.t_end_ns = 1300 * kMs;
  r.output_tokens = 100;
  r.output_tokens_source = TokenSource::usage;
  if (reasoning_tokens >= 0) {
    r.reasoning_tokens = reasoning_tokens;
    r.reasoning_tokens_source = TokenSource::usage;
  }
  return r;
}

TEST(ReasoningResults, RequestsJsonlWritesAndReadsBack) {
  std::string line;
  append_request_jsonl(line, record(1, 64, 120));
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["reasoning_tokens"], 64);
  EXPECT_EQ(j["reasoning_tokens_source"], "usage");
  EXPECT_DOUBLE_EQ(j["reasoning_ms"].get<double>(), 120.0);
  EXPECT_DOUBLE_EQ(j["ttft_content_ms"].get<double>() - j["ttft_ms"].get<double>(), 120.0);
  const RequestRecord back = parse_request_jsonl(line);
  EXPECT_EQ(back.reasoning_tokens, 64);
  EXPECT_EQ(back.reasoning_tokens_source, TokenSource::usage);
  EXPECT_EQ(back.reasoning_ms(), 120.0);

  std::string plain;
  append_request_jsonl(plain, record(2, -1, 0));
  const auto p = nlohmann::json::parse(plain);
  EXPECT_TRUE(p["reasoning_tokens"].is_null());
  EXPECT_TRUE(p["reasoning_tokens_source"].is_null());
  EXPECT_TRUE(p["reasoning_ms"].is_null());
  const RequestRecord plain_back = parse_request_jsonl(plain);
  EXPECT_EQ(plain_back.reasoning_tokens, -1);
  EXPECT_EQ(plain_back.reasoning_tokens_source, TokenSource::none);
  // An older line, without the fields, reads as no reasoning.
  EXPECT_EQ(parse_request_jsonl(R"({"id":3,"ok":true})").reasoning_tokens, -1);
}

TEST(ReasoningResults, SummaryHasReasoningDistributionsOnlyWhenSomeReasoned) {
  metrics::RunInfo info;
  // Three reasoning requests and one without: the distributions are over the three.
  const std::vector<RequestRecord> mixed = {record(1, 10, 20), record(2, 20, 40), record(3, 30, 60),
                                            record(4, -1, 0)};
  const metrics::RunSummary s = metrics::summarize_run(mixed, info);
  EXPECT_EQ(s.metrics.reasoning_tokens.count, 3);
  EXPECT_DOUBLE_EQ(s.metrics.reasoning_tokens.p50, 20.0);
  EXPECT_EQ(s.metrics.reasoning_ms.count, 3);
  EXPECT_DOUBLE_EQ(s.metrics.reasoning_ms.mean, 40.0);
  EXPECT_EQ(s.metrics.ttft_content_ms.count, 4);  // TTFO of every request
  const nlohmann::json j = summary_to_json(s, info);
  ASSERT_TRUE(j["metrics"].contains("reasoning_tokens")) << j["metrics"];
  EXPECT_EQ(j["metrics"]["reasoning_ms"]["count"], 3);
  const SummaryView v = summary_from_json(j);
  EXPECT_EQ(v.metrics.reasoning_tokens.count, 3);
  EXPECT_EQ(v.metrics.reasoning_tokens.p50, 20.0);
  EXPECT_EQ(v.metrics.reasoning_ms.max, 60.0);
  EXPECT_EQ(v.metrics.find("reasoning_ms"), &v.metrics.reasoning_ms);

  const std::vector<RequestRecord> plain = {record(1, -1, 0), record(2, -1, 0)};
  const nlohmann::json none = summary_to_json(metrics::summarize_run(plain, info), info);
  EXPECT_FALSE(none["metrics"].contains("reasoning_tokens"));
  EXPECT_FALSE(none["metrics"].contains("reasoning_ms"));
  EXPECT_FALSE(summary_from_json(none).metrics.reasoning_tokens.count);
}

}  // namespace
}  // namespace sb::results
