// summary.json's `abandonment` (--abandon-after) and goodput under abandonment: an abandoned
// request is a failure, never good, and counts in the rate's denominator like any other.
#include <gtest/gtest.h>

#include "metrics/run_summary.h"
#include "test_records.h"

namespace sb::metrics {
namespace {

using testing::make_record;

std::vector<RequestRecord> records() {
  std::vector<RequestRecord> v;
  // Three ok (TTFT 50, 150, 400 ms), two abandoned (one after it was sent, one before), one
  // server error, and an abandoned warm-up request that is not measured.
  v.push_back(make_record(0, {0, 0, 50, 90, 100}, 10));
  v.push_back(make_record(1, {10, 10, 160, 200, 210}, 10));
  v.push_back(make_record(2, {20, 20, 420, 450, 460}, 10));
  v.push_back(make_record(3, {30, 30, {}, {}, 530}, 0, ErrorClass::abandoned));
  v.push_back(make_record(4, {40, {}, {}, {}, 540}, 0, ErrorClass::abandoned));
  v.push_back(make_record(5, {50, 50, {}, {}, 60}, 0, ErrorClass::server_error));
  RequestRecord warm = make_record(6, {0, 0, {}, {}, 500}, 0, ErrorClass::abandoned);
  warm.warmup = true;
  v.push_back(warm);
  return v;
}

TEST(Abandonment, CountsTheMeasuredAbandonedOverAllMeasured) {
  RunInfo info;
  info.abandon_after_s = 0.5;
  const RunSummary s = summarize_run(records(), info);
  ASSERT_TRUE(s.abandonment);
  EXPECT_EQ(s.abandonment->after_s, 0.5);
  EXPECT_EQ(s.abandonment->abandoned, 2);
  EXPECT_EQ(s.requests.total, 6);
  EXPECT_DOUBLE_EQ(*s.abandonment->rate, 2.0 / 6.0);
  EXPECT_EQ(s.errors.at("abandoned"), 2);
}

TEST(Abandonment, AbsentWithoutTheFlagAndUndefinedWithNoRequests) {
  EXPECT_FALSE(summarize_run(records(), RunInfo{}).abandonment);
  RunInfo info;
  info.abandon_after_s = 1;
  const RunSummary empty = summarize_run({}, info);
  ASSERT_TRUE(empty.abandonment);
  EXPECT_EQ(empty.abandonment->abandoned, 0);
  EXPECT_FALSE(empty.abandonment->rate);
}

TEST(Abandonment, AbandonedRequestsAreNeverGood) {
  RunInfo info;
  info.abandon_after_s = 0.5;
  info.slo.ttft_ms = 1000;  // every ok request meets it
  RunSummary s = summarize_run(records(), info);
  EXPECT_EQ(s.goodput.good, 3);
  EXPECT_DOUBLE_EQ(*s.goodput.fraction, 3.0 / 6.0);
  info.slo.ttft_ms = 200;  // two of the ok ones
  s = summarize_run(records(), info);
  EXPECT_EQ(s.goodput.good, 2);
  // An abandoned record that somehow carries times is still not good.
  auto v = records();
  v[3].t_first_ns = v[3].t_send_ns + 1'000'000;
  v[3].t_last_ns = v[3].t_first_ns;
  v[3].output_tokens = 1;
  EXPECT_FALSE(meets_slo(v[3], Slo{.ttft_ms = 1000}));
}

}  // namespace
}  // namespace sb::metrics
