#include "metrics/timeseries.h"

#include <cmath>

#include <gtest/gtest.h>

#include "test_records.h"

namespace sb::metrics {
namespace {

using testing::make_record;

TEST(Timeseries, HandBuiltOneSecondBuckets) {
  // times in ms                         sched  send   first  last   end
  const std::vector<RequestRecord> recs = {
      make_record(1, {100, 100, 300, 900, 900}, 10),     // A: b0 -> b0, ttft 200 in b0
      make_record(2, {500, 500, 1200, 2500, 2500}, 20),  // B: b0 -> b2, ttft 700 in b1
      make_record(3, {1500, 1500, {}, {}, 1600}, 0, ErrorClass::server_error),  // C: b1 -> b1
      make_record(4, {1700, {}, {}, {}, 1800}, 0, ErrorClass::connect_error),   // D: never sent
      make_record(5, {1100, 1100, 1400, 2100, 2100}, 30),  // E: b1 -> b2, ttft 300 in b1
  };
  std::vector<const RequestRecord*> ptrs;
  for (const auto& r : recs) ptrs.push_back(&r);
  const auto ts = build_timeseries(ptrs, 1000);
  ASSERT_EQ(ts.size(), 3u);  // latest instant 2500 ms -> bucket 2

  EXPECT_DOUBLE_EQ(ts[0].t_start_s, 0);
  EXPECT_EQ(ts[0].started, 2);    // A, B
  EXPECT_EQ(ts[0].completed, 1);  // A
  EXPECT_EQ(ts[0].errors, 0);
  EXPECT_EQ(ts[0].in_flight, 1);  // 2 - 1
  EXPECT_DOUBLE_EQ(ts[0].requests_per_s, 1);
  EXPECT_DOUBLE_EQ(ts[0].output_tokens_per_s, 10);
  EXPECT_DOUBLE_EQ(*ts[0].ttft_mean_ms, 200);
  EXPECT_DOUBLE_EQ(*ts[0].ttft_p99_ms, 200);

  EXPECT_DOUBLE_EQ(ts[1].t_start_s, 1);
  EXPECT_EQ(ts[1].started, 3);    // C, D (at its t_sched), E
  EXPECT_EQ(ts[1].completed, 2);  // C, D
  EXPECT_EQ(ts[1].errors, 2);
  EXPECT_EQ(ts[1].in_flight, 2);  // 1 + 3 - 2: B and E
  EXPECT_DOUBLE_EQ(ts[1].requests_per_s, 0);
  EXPECT_DOUBLE_EQ(ts[1].output_tokens_per_s, 0);
  EXPECT_DOUBLE_EQ(*ts[1].ttft_mean_ms, 500);  // (700 + 300) / 2
  EXPECT_DOUBLE_EQ(*ts[1].ttft_p99_ms, 696);   // sorted [300, 700], rank 0.99 -> 300 + 0.99*400

  EXPECT_EQ(ts[2].started, 0);
  EXPECT_EQ(ts[2].completed, 2);  // B, E
  EXPECT_EQ(ts[2].in_flight, 0);
  EXPECT_DOUBLE_EQ(ts[2].requests_per_s, 2);
  EXPECT_DOUBLE_EQ(ts[2].output_tokens_per_s, 50);  // 20 + 30 tokens in one second
  EXPECT_FALSE(ts[2].ttft_mean_ms);
  EXPECT_FALSE(ts[2].ttft_p99_ms);
}

TEST(Timeseries, RatesUseTheInterval) {
  const auto r = make_record(1, {0, 0, 100, 200, 200}, 7);
  const auto ts = build_timeseries({&r}, 250);  // 0.25 s buckets
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_DOUBLE_EQ(ts[0].requests_per_s, 4);        // 1 / 0.25
  EXPECT_DOUBLE_EQ(ts[0].output_tokens_per_s, 28);  // 7 / 0.25
}

TEST(Timeseries, AFarFutureTimeWidensTheIntervalInsteadOfExhaustingMemory) {
  // A corrupt requests.jsonl line 9e6 s (104 days) into the run: 9e6 one-second buckets
  // would be ~1 GB; the series widens to whole seconds that fit kMaxTimeBuckets.
  const auto a = make_record(1, {0, 0, 100, 200, 200}, 7);
  const auto b = make_record(2, {0, 0, 100, 200, 9'000'000'000}, 5);
  const auto ts = build_timeseries({&a, &b}, 1000);
  ASSERT_LE(ts.size(), kMaxTimeBuckets);
  ASSERT_GE(ts.size(), 2u);
  const double spacing_s = ts[1].t_start_s;
  EXPECT_GT(spacing_s, 1);
  EXPECT_DOUBLE_EQ(spacing_s, std::round(spacing_s));  // a whole multiple of the 1 s asked
  EXPECT_EQ(ts[0].completed, 1);
  EXPECT_EQ(ts.back().completed, 1);
  EXPECT_DOUBLE_EQ(ts[0].output_tokens_per_s, 7 / spacing_s);
}

// The far-future record first: the accumulator merges its buckets while records still come
// (kMaxBaseBuckets), and the series equals the one built with that record last.
TEST(Timeseries, AFarFutureTimeFirstGivesTheSameSeries) {
  const auto a = make_record(1, {0, 0, 100, 200, 200}, 7);
  const auto b = make_record(2, {0, 0, 100, 200, 9'000'000'000}, 5);
  const auto c = make_record(3, {1500, 1500, 1600, 1700, 1700}, 3);
  const auto late_last = build_timeseries({&a, &c, &b}, 1000);
  const auto late_first = build_timeseries({&b, &a, &c}, 1000);
  ASSERT_EQ(late_first.size(), late_last.size());
  for (size_t i = 0; i < late_first.size(); ++i) {
    ASSERT_EQ(late_first[i].t_start_s, late_last[i].t_start_s) << i;
    ASSERT_EQ(late_first[i].started, late_last[i].started) << i;
    ASSERT_EQ(late_first[i].completed, late_last[i].completed) << i;
    ASSERT_EQ(late_first[i].in_flight, late_last[i].in_flight) << i;
    ASSERT_EQ(late_first[i].output_tokens_per_s, late_last[i].output_tokens_per_s) << i;
    ASSERT_EQ(late_first[i].ttft_p99_ms, late_last[i].ttft_p99_ms) << i;
  }
  EXPECT_EQ(late_first[0].started, 3);
  EXPECT_EQ(late_first[0].completed, 2);
}

TEST(Timeseries, EmptyOrNoInterval) {
  EXPECT_TRUE(build_timeseries({}, 1000).empty());
  const auto r = make_record(1, {0, 0, 100, 200, 200}, 7);
  EXPECT_TRUE(build_timeseries({&r}, 0).empty());
}

}  // namespace
}  // namespace sb::metrics
