// summary.json's `priority_classes` (--priority-mix, metrics/priority_summary.h): per class
// counts, TTFT and e2e percentiles over ok requests, goodput against the run's SLO, fairness.
#include "metrics/priority_summary.h"

#include <gtest/gtest.h>

#include "metrics/run_summary.h"
#include "test_records.h"

namespace sb::metrics {
namespace {

using testing::make_record;

RequestRecord with_class(RequestRecord r, const char* name, int64_t priority) {
  r.priority_class = name;
  r.priority = priority;
  return r;
}

std::vector<RequestRecord> records() {
  std::vector<RequestRecord> v;
  // high: TTFT 50 and 100 ms, both ok. normal: TTFT 100, 300, 500 ms and one failure.
  v.push_back(with_class(make_record(0, {0, 0, 50, 90, 100}, 10), "high", 0));
  v.push_back(with_class(make_record(1, {0, 0, 100, 190, 200}, 10), "high", 0));
  v.push_back(with_class(make_record(2, {0, 0, 100, 150, 150}, 10), "normal", 1));
  v.push_back(with_class(make_record(3, {0, 0, 300, 350, 350}, 10), "normal", 1));
  v.push_back(with_class(make_record(4, {0, 0, 500, 900, 1000}, 10), "normal", 1));
  v.push_back(
      with_class(make_record(5, {0, 0, {}, {}, 40}, 0, ErrorClass::server_error), "normal", 1));
  RequestRecord warm = with_class(make_record(6, {0, 0, 900, 990, 1000}, 10), "high", 0);
  warm.warmup = true;  // not measured
  v.push_back(warm);
  return v;
}

TEST(PrioritySummary, PerClassFiguresMostUrgentFirstAndFairness) {
  RunInfo info;
  info.slo.ttft_ms = 200;
  const RunSummary s = summarize_run(records(), info);
  ASSERT_TRUE(s.priority);
  ASSERT_EQ(s.priority->classes.size(), 2u);
  const PriorityClassSummary& high = s.priority->classes[0];
  const PriorityClassSummary& normal = s.priority->classes[1];
  EXPECT_EQ(high.name, "high");
  EXPECT_EQ(high.priority, 0);
  EXPECT_EQ(high.requests, 2);
  EXPECT_EQ(high.ok, 2);
  EXPECT_DOUBLE_EQ(high.ttft_ms.p50, 75);
  EXPECT_DOUBLE_EQ(high.ttft_ms.p99, 50 + 0.99 * 50);
  EXPECT_DOUBLE_EQ(high.e2e_ms.p50, 140);
  EXPECT_EQ(high.good, 2);
  EXPECT_DOUBLE_EQ(*high.goodput_fraction, 1.0);
  EXPECT_EQ(normal.name, "normal");
  EXPECT_EQ(normal.requests, 4);
  EXPECT_EQ(normal.ok, 3);
  EXPECT_EQ(normal.ttft_ms.count, 3);
  EXPECT_DOUBLE_EQ(normal.ttft_ms.p50, 300);
  EXPECT_EQ(normal.good, 1);  // only TTFT 100 meets 200 ms; the failure never does
  EXPECT_DOUBLE_EQ(*normal.goodput_fraction, 0.25);
  // The run's window: first send 0 .. last end 1000 ms.
  EXPECT_DOUBLE_EQ(*normal.goodput_requests_per_s, 1.0);
  EXPECT_DOUBLE_EQ(*high.goodput_requests_per_s, 2.0);
  ASSERT_TRUE(s.priority->fairness);
  EXPECT_DOUBLE_EQ(*s.priority->fairness, 0.25);
}

TEST(PrioritySummary, NoSloNoGoodputNoClassesNoBlock) {
  const RunSummary s = summarize_run(records(), RunInfo{});
  ASSERT_TRUE(s.priority);
  EXPECT_FALSE(s.priority->fairness);
  EXPECT_FALSE(s.priority->classes[0].goodput_fraction);
  EXPECT_FALSE(s.priority->classes[0].goodput_requests_per_s);
  EXPECT_EQ(s.priority->classes[0].good, 0);

  std::vector<RequestRecord> plain = records();
  for (auto& r : plain) r.priority_class.clear();
  EXPECT_FALSE(summarize_run(plain, RunInfo{}).priority);
}

TEST(PrioritySummary, FairnessUndefinedWhenNoClassMetTheSlo) {
  RunInfo info;
  info.slo.ttft_ms = 1;
  const RunSummary s = summarize_run(records(), info);
  ASSERT_TRUE(s.priority);
  EXPECT_DOUBLE_EQ(*s.priority->classes[0].goodput_fraction, 0.0);
  EXPECT_FALSE(s.priority->fairness);
}

}  // namespace
}  // namespace sb::metrics
