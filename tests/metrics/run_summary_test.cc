#include "metrics/run_summary.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "test_records.h"

namespace sb::metrics {
namespace {

using testing::make_record;

// One warm-up and four measured requests (times in ms):
//        class  sched  send   first  last   end    in  out  itl            source (alt)
//   W    chat   0      0      10     50     50     -   -    warm-up, ignored
//   R1   chat   100    100    150    350    351    10  5    50 x4          usage (6)
//   R2   chat   200    203    303    503    505    20  3    100 x2         usage (3)
//   R3   long   300    300    400    1100   1100   30  8    100 x7         tokenizer
//   R4   long   400    401.5  -      -      402    40  0    server_error 500
// Measured window: first send 100 .. last end 1100 = 1 s.
std::vector<RequestRecord> fixture() {
  std::vector<RequestRecord> v;
  RequestRecord w = make_record(0, {0, 0, 10, 50, 50}, 3);
  w.warmup = true;
  w.request_class = "chat";
  v.push_back(w);

  RequestRecord r1 = make_record(1, {100, 100, 150, 350, 351}, 5);
  r1.request_class = "chat";
  r1.input_tokens = 10;
  r1.itl_ms = {50, 50, 50, 50};
  r1.output_tokens_alt = 6;
  r1.output_tokens_alt_source = TokenSource::estimate;
  v.push_back(r1);

  RequestRecord r2 = make_record(2, {200, 203, 303, 503, 505}, 3);
  r2.request_class = "chat";
  r2.input_tokens = 20;
  r2.itl_ms = {100, 100};
  r2.output_tokens_alt = 3;
  r2.output_tokens_alt_source = TokenSource::estimate;
  v.push_back(r2);

  RequestRecord r3 = make_record(3, {300, 300, 400, 1100, 1100}, 8);
  r3.request_class = "long";
  r3.input_tokens = 30;
  r3.itl_ms = std::vector<float>(7, 100.0f);
  r3.output_tokens_source = TokenSource::tokenizer;
  v.push_back(r3);

  RequestRecord r4 = make_record(4, {400, 401.5, {}, {}, 402}, 0, ErrorClass::server_error);
  r4.request_class = "long";
  r4.status = 500;
  r4.input_tokens = 40;
  v.push_back(r4);
  return v;
}

RunInfo info() {
  RunInfo i;
  i.load_mode = "closed";
  i.concurrency = 4;
  i.slo.ttft_ms = 80;
  i.slo.tpot_ms = 100;
  i.bucket_interval_ms = 500;
  return i;
}

TEST(RunSummary, CountsExcludeWarmup) {
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_EQ(s.requests.total, 4);
  EXPECT_EQ(s.requests.ok, 3);
  EXPECT_EQ(s.requests.failed, 1);
  EXPECT_EQ(s.requests.warmup, 1);
  EXPECT_DOUBLE_EQ(*s.success_rate, 0.75);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.errors.at("server_error"), 1);
}

TEST(RunSummary, LatencyDistributions) {
  const RunSummary s = summarize_run(fixture(), info());
  const MetricSet& m = s.metrics;
  // ttft over ok: R1 50, R2 100, R3 100
  EXPECT_EQ(m.ttft_ms.count, 3);
  EXPECT_DOUBLE_EQ(m.ttft_ms.mean, 250.0 / 3);
  EXPECT_DOUBLE_EQ(m.ttft_ms.min, 50);
  EXPECT_DOUBLE_EQ(m.ttft_ms.p50, 100);
  EXPECT_EQ(m.ttft_content_ms.count, 3);
  // e2e: 250, 300, 800 -> mean 450; p90 rank 1.8 -> 300 + 0.8*500 = 700
  EXPECT_DOUBLE_EQ(m.e2e_ms.mean, 450);
  EXPECT_DOUBLE_EQ(m.e2e_ms.p50, 300);
  EXPECT_DOUBLE_EQ(m.e2e_ms.p90, 700);
  // scheduled_e2e: 250, 303, 800
  EXPECT_DOUBLE_EQ(m.scheduled_e2e_ms.p50, 303);
  EXPECT_DOUBLE_EQ(m.scheduled_e2e_ms.max, 800);
  // tpot: (250-50)/4 = 50, (300-100)/2 = 100, (800-100)/7 = 100
  EXPECT_DOUBLE_EQ(m.tpot_ms.mean, 250.0 / 3);
  // itl pooled: 4 x 50 + 9 x 100 = 13 samples, mean 1100/13; median rank 6 -> 100
  EXPECT_EQ(m.itl_ms.count, 13);
  EXPECT_DOUBLE_EQ(m.itl_ms.mean, 1100.0 / 13);
  EXPECT_DOUBLE_EQ(m.itl_ms.p50, 100);
  EXPECT_DOUBLE_EQ(m.itl_ms.min, 50);
  // dispatch delay over every measured sent request, R4 included: 0, 3, 0, 1.5
  EXPECT_EQ(m.dispatch_delay_ms.count, 4);
  EXPECT_DOUBLE_EQ(m.dispatch_delay_ms.mean, 1.125);
  EXPECT_DOUBLE_EQ(m.dispatch_delay_ms.max, 3);
  // tokens over ok requests
  EXPECT_DOUBLE_EQ(m.input_tokens.mean, 20);         // (10 + 20 + 30) / 3
  EXPECT_DOUBLE_EQ(m.output_tokens.mean, 16.0 / 3);  // (5 + 3 + 8) / 3
}

TEST(RunSummary, ThroughputOverMeasuredWindow) {
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_DOUBLE_EQ(s.throughput.window_s, 1.0);             // 100 ms .. 1100 ms
  EXPECT_DOUBLE_EQ(*s.throughput.requests_per_s, 3);        // 3 ok / 1 s
  EXPECT_DOUBLE_EQ(*s.throughput.input_tokens_per_s, 60);   // 10 + 20 + 30
  EXPECT_DOUBLE_EQ(*s.throughput.output_tokens_per_s, 16);  // 5 + 3 + 8
  EXPECT_DOUBLE_EQ(*s.throughput.total_tokens_per_s, 76);
}

TEST(RunSummary, Goodput) {
  // ttft <= 80 and tpot <= 100: only R1 (ttft 50, tpot 50); R2, R3 have ttft 100; R4 failed.
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_EQ(s.goodput.good, 1);
  EXPECT_DOUBLE_EQ(*s.goodput.requests_per_s, 1);
  EXPECT_DOUBLE_EQ(*s.goodput.fraction, 0.25);  // of the 4 measured
  RunInfo no_slo = info();
  no_slo.slo = {};
  const RunSummary n = summarize_run(fixture(), no_slo);
  EXPECT_FALSE(n.goodput.requests_per_s);
  EXPECT_FALSE(n.goodput.fraction);
}

TEST(RunSummary, Load) {
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_EQ(s.load.mode, "closed");
  EXPECT_EQ(s.load.concurrency, 4);
  // sends at 100, 203, 300, 401.5 ms: (4 - 1) / 0.3015 s
  EXPECT_NEAR(*s.load.achieved_rate, 3 / 0.3015, 1e-9);
  EXPECT_EQ(s.load.late_sends, 2);  // R2 (3 ms), R4 (1.5 ms)
}

TEST(RunSummary, TokenSources) {
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_EQ(s.token_sources.counts.at("usage"), 2);
  EXPECT_EQ(s.token_sources.counts.at("tokenizer"), 1);
  EXPECT_EQ(s.token_sources.discrepancy_count, 2);
  EXPECT_DOUBLE_EQ(*s.token_sources.mean_abs_diff_tokens, 0.5);  // |5-6| = 1, |3-3| = 0
  EXPECT_DOUBLE_EQ(*s.token_sources.mean_abs_rel_diff, 0.1);     // (1/5 + 0) / 2
}

TEST(RunSummary, Classes) {
  const RunSummary s = summarize_run(fixture(), info());
  ASSERT_EQ(s.classes.size(), 2u);
  const ClassSummary& chat = s.classes.at("chat");
  EXPECT_EQ(chat.requests.total, 2);
  EXPECT_EQ(chat.requests.ok, 2);
  EXPECT_DOUBLE_EQ(*chat.throughput.requests_per_s, 2);  // run window: 1 s
  EXPECT_DOUBLE_EQ(chat.metrics.ttft_ms.mean, 75);       // (50 + 100) / 2
  const ClassSummary& lng = s.classes.at("long");
  EXPECT_EQ(lng.requests.failed, 1);
  EXPECT_EQ(lng.errors.at("server_error"), 1);
  EXPECT_DOUBLE_EQ(*lng.throughput.output_tokens_per_s, 8);

  std::vector<RequestRecord> one_class = fixture();
  for (auto& r : one_class) r.request_class = "default";
  EXPECT_TRUE(summarize_run(one_class, info()).classes.empty());
}

void expect_same(const Distribution& a, const Distribution& b, const std::string& what) {
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.mean, b.mean) << what;
  EXPECT_EQ(a.stddev, b.stddev) << what;
  EXPECT_EQ(a.min, b.min) << what;
  EXPECT_EQ(a.p50, b.p50) << what;
  EXPECT_EQ(a.p99, b.p99) << what;
  EXPECT_EQ(a.p999, b.p999) << what;
  EXPECT_EQ(a.max, b.max) << what;
}

// The per-class columns are one column with class tags, written only once a second class
// appears (here after more than a chunk of one class): each class's metrics equal those of
// a run made of that class's requests alone, and with one named class they are the run's.
TEST(RunSummary, ClassMetricsEqualARunOfThatClassAlone) {
  std::vector<RequestRecord> all;
  std::map<std::string, std::vector<RequestRecord>> alone;
  for (uint64_t i = 0; i < 70'000; ++i) {
    const double t = static_cast<double>(i) * 0.1;
    const double ttft = 5 + static_cast<double>(i * 7919 % 1000) / 10;
    RequestRecord r = make_record(i, {t, t, t + ttft, t + ttft + 40, t + ttft + 41}, 5);
    r.request_class = i < 66'000 ? "a" : std::array{"a", "b", "c"}[i % 3];
    r.input_tokens = static_cast<int64_t>(i % 17);
    r.itl_ms = {10, static_cast<float>(i % 13)};
    if (i % 101 == 0) r.error_class = ErrorClass::timeout_total;
    all.push_back(r);
    alone[r.request_class].push_back(r);
  }
  const RunSummary s = summarize_run(all, info());
  ASSERT_EQ(s.classes.size(), 3u);
  for (const auto& [name, records] : alone) {
    const MetricSet& got = s.classes.at(name).metrics;
    const RunSummary want = summarize_run(records, info());
    ASSERT_EQ(want.classes.size(), 1u);
    expect_same(got.ttft_ms, want.metrics.ttft_ms, name + " ttft");
    expect_same(got.tpot_ms, want.metrics.tpot_ms, name + " tpot");
    expect_same(got.itl_ms, want.metrics.itl_ms, name + " itl");
    expect_same(got.e2e_ms, want.metrics.e2e_ms, name + " e2e");
    expect_same(got.dispatch_delay_ms, want.metrics.dispatch_delay_ms, name + " delay");
    expect_same(got.input_tokens, want.metrics.input_tokens, name + " input");
    expect_same(want.classes.at(name).metrics.ttft_ms, want.metrics.ttft_ms, name + " alone");
    EXPECT_EQ(s.classes.at(name).errors, want.errors) << name;
  }
  EXPECT_EQ(s.metrics.itl_ms.count, 2 * s.requests.ok);
}

TEST(RunSummary, Timeseries) {
  const RunSummary s = summarize_run(fixture(), info());
  EXPECT_DOUBLE_EQ(s.bucket_interval_ms, 500);
  ASSERT_EQ(s.timeseries.size(), 3u);       // latest instant 1100 ms -> bucket 2 of 500 ms
  EXPECT_EQ(s.timeseries[0].started, 4);    // warm-up excluded
  EXPECT_EQ(s.timeseries[0].completed, 2);  // R1 (351), R4 (402)
  EXPECT_EQ(s.timeseries[0].errors, 1);
  EXPECT_EQ(s.timeseries[1].completed, 1);  // R2 (505)
  EXPECT_EQ(s.timeseries[2].completed, 1);  // R3 (1100)
}

TEST(RunSummary, Empty) {
  const RunSummary s = summarize_run({}, info());
  EXPECT_EQ(s.requests.total, 0);
  EXPECT_FALSE(s.success_rate);
  EXPECT_FALSE(s.throughput.requests_per_s);
  EXPECT_FALSE(s.load.achieved_rate);
  EXPECT_TRUE(s.timeseries.empty());
  EXPECT_EQ(s.metrics.ttft_ms.count, 0);
}

}  // namespace
}  // namespace sb::metrics
