#include "results/summary_json.h"

#include <gtest/gtest.h>

#include "../report/fixture.h"

namespace sb::results {
namespace {

namespace testing = sb::report::testing;  // the report tests' fixture run

using nlohmann::json;

constexpr const char* kMetricNames[] = {
    "ttft_ms",          "ttft_content_ms",   "tpot_ms",      "itl_ms",       "e2e_ms",
    "scheduled_e2e_ms", "dispatch_delay_ms", "input_tokens", "output_tokens"};
constexpr const char* kStatNames[] = {"count", "mean", "stddev", "min",  "p50",
                                      "p90",   "p95",  "p99",    "p999", "max"};

json fixture_json(metrics::RunInfo info = testing::fixture_info()) {
  return summary_to_json(metrics::summarize_run(testing::fixture_records(), info), info);
}

TEST(SummaryJson, TopLevelSchema) {
  const json j = fixture_json();
  EXPECT_EQ(j.at("schema"), "servebench.summary/1");
  EXPECT_EQ(j.at("tool").at("name"), "servebench");
  EXPECT_EQ(j.at("tool").at("version"), "0.1.0");
  EXPECT_EQ(j.at("config").at("api_key"), "<redacted>");
  EXPECT_EQ(j.at("host").at("hostname"), "test");
  for (const char* k : {"schema", "tool", "config", "host", "run", "metrics", "throughput",
                        "goodput", "load", "errors", "timeseries", "token_sources", "classes"})
    EXPECT_TRUE(j.contains(k)) << k;
}

TEST(SummaryJson, Run) {
  const json run = fixture_json().at("run");
  EXPECT_EQ(run.at("started_at"), "2026-12-02T13:00:00Z");
  EXPECT_TRUE(run.at("duration_s").is_number());
  EXPECT_EQ(run.at("interrupted"), false);
  const json& req = run.at("requests");
  EXPECT_EQ(req.at("total"), 3);
  EXPECT_EQ(req.at("ok"), 2);
  EXPECT_EQ(req.at("failed"), 1);
  EXPECT_EQ(req.at("warmup"), 1);
  for (const char* k : {"total", "ok", "failed", "warmup"})
    EXPECT_TRUE(req.at(k).is_number_integer()) << k;
}

TEST(SummaryJson, EveryMetricHasEveryStatistic) {
  const json m = fixture_json().at("metrics");
  EXPECT_EQ(m.size(), std::size(kMetricNames));
  for (const char* name : kMetricNames) {
    ASSERT_TRUE(m.contains(name)) << name;
    EXPECT_EQ(m.at(name).size(), std::size(kStatNames)) << name;
    for (const char* stat : kStatNames) {
      ASSERT_TRUE(m.at(name).contains(stat)) << name << "." << stat;
      EXPECT_TRUE(m.at(name).at(stat).is_number()) << name << "." << stat;
    }
    EXPECT_TRUE(m.at(name).at("count").is_number_integer());
  }
  EXPECT_EQ(m.at("ttft_ms").at("count"), 2);
  EXPECT_DOUBLE_EQ(m.at("ttft_ms").at("mean").get<double>(), 75);  // (50 + 100) / 2
}

TEST(SummaryJson, EmptyDistributionIsNull) {
  const json d = distribution_to_json(metrics::Distribution{});
  EXPECT_EQ(d.at("count"), 0);
  for (const char* stat : kStatNames)
    if (std::string_view(stat) != "count") {
      EXPECT_TRUE(d.at(stat).is_null()) << stat;
    }
}

TEST(SummaryJson, ThroughputGoodputLoadErrors) {
  const json j = fixture_json();
  const json& t = j.at("throughput");
  for (const char* k : {"requests_per_s", "input_tokens_per_s", "output_tokens_per_s",
                        "total_tokens_per_s", "window_s"})
    EXPECT_TRUE(t.at(k).is_number()) << k;
  EXPECT_DOUBLE_EQ(t.at("window_s").get<double>(), 1.0);  // 100 .. 1100 ms
  EXPECT_DOUBLE_EQ(t.at("requests_per_s").get<double>(), 2.0);

  const json& g = j.at("goodput");
  EXPECT_EQ(g.at("slo"), json({{"ttft_ms", 200.0}}));
  EXPECT_DOUBLE_EQ(g.at("requests_per_s").get<double>(), 2.0);  // both ok ones have ttft <= 200
  EXPECT_DOUBLE_EQ(g.at("fraction").get<double>(), 2.0 / 3);

  const json& l = j.at("load");
  EXPECT_EQ(l.at("mode"), "closed");
  EXPECT_EQ(l.at("concurrency"), 8);
  EXPECT_FALSE(l.contains("target_rate"));
  EXPECT_TRUE(l.at("achieved_rate").is_number());
  EXPECT_EQ(l.at("late_sends"), 1);  // R2: 3 ms late

  EXPECT_EQ(j.at("errors"), json({{"server_error", 1}}));
}

TEST(SummaryJson, OpenLoopLoad) {
  metrics::RunInfo info = testing::fixture_info();
  info.load_mode = "open";
  info.target_rate = 12.5;
  const json l = fixture_json(info).at("load");
  EXPECT_EQ(l.at("mode"), "open");
  EXPECT_DOUBLE_EQ(l.at("target_rate").get<double>(), 12.5);
  EXPECT_TRUE(l.at("max_concurrency").is_null());
  EXPECT_FALSE(l.contains("concurrency"));
}

TEST(SummaryJson, NoSloGivesNullGoodput) {
  metrics::RunInfo info = testing::fixture_info();
  info.slo = {};
  const json g = fixture_json(info).at("goodput");
  EXPECT_TRUE(g.at("slo").is_object());
  EXPECT_TRUE(g.at("slo").empty());
  EXPECT_TRUE(g.at("requests_per_s").is_null());
  EXPECT_TRUE(g.at("fraction").is_null());
}

TEST(SummaryJson, ClassesAndTimeseries) {
  const json j = fixture_json();
  const json& c = j.at("classes");
  ASSERT_TRUE(c.contains("chat"));
  ASSERT_TRUE(c.contains("long"));
  for (const char* k : {"requests", "metrics", "throughput", "errors"})
    EXPECT_TRUE(c.at("long").contains(k)) << k;
  EXPECT_EQ(c.at("long").at("errors").at("server_error"), 1);

  const json& ts = j.at("timeseries");
  ASSERT_TRUE(ts.is_array());
  ASSERT_EQ(ts.size(), 2u);  // 1 s buckets, last end at 1100 ms
  for (const char* k : {"t_s", "started", "completed", "errors", "in_flight", "requests_per_s",
                        "output_tokens_per_s", "ttft_mean_ms", "ttft_p99_ms"})
    EXPECT_TRUE(ts[0].contains(k)) << k;
  EXPECT_EQ(ts[0].at("started"), 3);
  EXPECT_EQ(ts[1].at("errors"), 1);
  EXPECT_TRUE(ts[1].at("ttft_mean_ms").is_null());

  const json& src = j.at("token_sources");
  EXPECT_EQ(src.at("counts").at("usage"), 2);
  EXPECT_EQ(src.at("discrepancy").at("count"), 0);
  EXPECT_TRUE(src.at("discrepancy").at("mean_abs_tokens").is_null());
}

TEST(SummaryJson, OneClassHasNoClasses) {
  auto recs = testing::fixture_records();
  for (auto& r : recs) r.request_class = "default";
  const auto info = testing::fixture_info();
  EXPECT_FALSE(summary_to_json(metrics::summarize_run(recs, info), info).contains("classes"));
}

}  // namespace
}  // namespace sb::results
