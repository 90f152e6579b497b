// summary_from_json: summary_to_json -> summary_from_json gives back every field; older or
// hand-written summaries read as empty optionals.
#include "results/summary_read.h"

#include <gtest/gtest.h>

#include "../report/fixture.h"
#include "results/summary_json.h"

namespace sb::results {
namespace {

namespace testing = sb::report::testing;  // the report tests' fixture run

using nlohmann::json;

void expect_distribution(const metrics::Distribution& d, const DistributionView& v,
                         const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(v.count, d.count);
  if (d.empty()) {
    for (const char* s : {"mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max"})
      EXPECT_FALSE(v.stat(s)) << s;
    return;
  }
  EXPECT_EQ(v.mean, d.mean);
  EXPECT_EQ(v.stddev, d.stddev);
  EXPECT_EQ(v.min, d.min);
  EXPECT_EQ(v.p50, d.p50);
  EXPECT_EQ(v.p90, d.p90);
  EXPECT_EQ(v.p95, d.p95);
  EXPECT_EQ(v.p99, d.p99);
  EXPECT_EQ(v.p999, d.p999);
  EXPECT_EQ(v.max, d.max);
  EXPECT_EQ(v.stat("p99"), d.p99);
}

void expect_metrics(const metrics::MetricSet& m, const MetricsView& v) {
  expect_distribution(m.ttft_ms, v.ttft_ms, "ttft_ms");
  expect_distribution(m.ttft_content_ms, v.ttft_content_ms, "ttft_content_ms");
  expect_distribution(m.tpot_ms, v.tpot_ms, "tpot_ms");
  expect_distribution(m.itl_ms, v.itl_ms, "itl_ms");
  expect_distribution(m.e2e_ms, v.e2e_ms, "e2e_ms");
  expect_distribution(m.scheduled_e2e_ms, v.scheduled_e2e_ms, "scheduled_e2e_ms");
  expect_distribution(m.dispatch_delay_ms, v.dispatch_delay_ms, "dispatch_delay_ms");
  expect_distribution(m.input_tokens, v.input_tokens, "input_tokens");
  expect_distribution(m.output_tokens, v.output_tokens, "output_tokens");
  EXPECT_EQ(v.find("e2e_ms"), &v.e2e_ms);
  EXPECT_EQ(v.find("p99_e2e"), nullptr);
}

void expect_requests(const metrics::RequestCounts& c, const RequestsView& v) {
  EXPECT_EQ(v.total, c.total);
  EXPECT_EQ(v.ok, c.ok);
  EXPECT_EQ(v.failed, c.failed);
  EXPECT_EQ(v.warmup, c.warmup);
}

void expect_throughput(const metrics::Throughput& t, const ThroughputView& v) {
  EXPECT_EQ(v.window_s, t.window_s);
  EXPECT_EQ(v.requests_per_s, t.requests_per_s);
  EXPECT_EQ(v.input_tokens_per_s, t.input_tokens_per_s);
  EXPECT_EQ(v.output_tokens_per_s, t.output_tokens_per_s);
  EXPECT_EQ(v.total_tokens_per_s, t.total_tokens_per_s);
}

void expect_quality(const std::optional<quality::CorpusQuality>& q,
                    const std::optional<QualityView>& v) {
  ASSERT_EQ(q.has_value(), v.has_value());
  if (!q) return;
  EXPECT_EQ(v->bleu, q->bleu);
  EXPECT_EQ(v->chrf, q->chrf);
  EXPECT_EQ(v->rouge_l, q->rouge_l);
  EXPECT_EQ(v->exact_match, q->exact_match);
  EXPECT_EQ(v->scored, q->scored);
  EXPECT_EQ(v->empty_references, q->empty_references);
}

TEST(SummaryRead, RoundTripGivesBackEveryField) {
  metrics::RunInfo info = testing::fixture_info();
  info.slo.tpot_ms = 40;
  info.config["provider"] = "tgi-a10g";
  info.config["scenario"] = "chat";
  info.config["stage"] = "saturation";
  info.config["sim_preset"] = "tgi";
  info.config["sim_time_scale"] = 0.005;
  info.config["sim_seed"] = uint64_t{18446744073709551557u};  // above 2^53: exact
  info.config["sim_replicas"] = 2;
  info.config["max_error_rate"] = 0.05;
  info.config["workload"] = {{"input_tokens", 64}, {"output_tokens", 16}, {"scenario", "chat"}};
  info.telemetry = {{"interval_ms", 200}, {"series", json::array({{{"name", "sm_util_pct"}}})}};
  metrics::RunSummary s = metrics::summarize_run(testing::fixture_records(), info);
  s.quality = quality::CorpusQuality{41.5, 60.25, 0.5, 0.25, 3, 1};
  s.classes.begin()->second.quality = quality::CorpusQuality{10, 20, 0.75, 1, 1, 0};
  ASSERT_FALSE(s.timeseries.empty());
  ASSERT_EQ(s.classes.size(), 2u);

  const SummaryView v = summary_from_json(summary_to_json(s, info));

  EXPECT_EQ(v.schema, kSummarySchema);
  EXPECT_EQ(v.tool_name, info.tool_name);
  EXPECT_EQ(v.tool_version, info.tool_version);
  EXPECT_EQ(v.config, info.config);
  EXPECT_EQ(v.host, info.host);
  EXPECT_EQ(v.started_at, info.started_at);
  EXPECT_EQ(v.duration_s, info.duration_s);
  EXPECT_EQ(v.interrupted, info.interrupted);
  EXPECT_EQ(v.bucket_interval_ms, s.bucket_interval_ms);
  EXPECT_EQ(v.success_rate, s.success_rate);
  expect_requests(s.requests, v.requests);
  expect_metrics(s.metrics, v.metrics);
  expect_throughput(s.throughput, v.throughput);
  EXPECT_EQ(v.goodput.slo.ttft_ms, s.goodput.slo.ttft_ms);
  EXPECT_EQ(v.goodput.slo.tpot_ms, s.goodput.slo.tpot_ms);
  EXPECT_EQ(v.goodput.slo.e2e_ms, s.goodput.slo.e2e_ms);
  EXPECT_EQ(v.goodput.good, s.goodput.good);
  EXPECT_EQ(v.goodput.requests_per_s, s.goodput.requests_per_s);
  EXPECT_EQ(v.goodput.fraction, s.goodput.fraction);
  EXPECT_EQ(v.load.mode, s.load.mode);
  EXPECT_EQ(v.load.concurrency, s.load.concurrency);
  EXPECT_FALSE(v.load.target_rate);  // closed loop
  EXPECT_EQ(v.load.achieved_rate, s.load.achieved_rate);
  EXPECT_EQ(v.load.late_sends, s.load.late_sends);
  EXPECT_EQ(v.errors, s.errors);
  EXPECT_EQ(v.token_sources.counts, s.token_sources.counts);
  EXPECT_EQ(v.token_sources.discrepancy_count, s.token_sources.discrepancy_count);
  EXPECT_EQ(v.token_sources.discrepancy_pairs, s.token_sources.discrepancy_pairs);
  EXPECT_EQ(v.token_sources.mean_abs_tokens, s.token_sources.mean_abs_diff_tokens);
  EXPECT_EQ(v.token_sources.mean_abs_rel, s.token_sources.mean_abs_rel_diff);
  expect_quality(s.quality, v.quality);
  ASSERT_EQ(v.classes.size(), s.classes.size());
  for (const auto& [name, c] : s.classes) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(v.classes.contains(name));
    const ClassView& cv = v.classes.at(name);
    expect_requests(c.requests, cv.requests);
    expect_metrics(c.metrics, cv.metrics);
    expect_throughput(c.throughput, cv.throughput);
    EXPECT_EQ(cv.errors, c.errors);
    expect_quality(c.quality, cv.quality);
  }
  ASSERT_EQ(v.timeseries.size(), s.timeseries.size());
  for (size_t i = 0; i < s.timeseries.size(); ++i) {
    const metrics::TimeBucket& b = s.timeseries[i];
    const TimeBucketView& bv = v.timeseries[i];
    EXPECT_EQ(bv.t_s, b.t_start_s);
    EXPECT_EQ(bv.started, b.started);
    EXPECT_EQ(bv.completed, b.completed);
    EXPECT_EQ(bv.errors, b.errors);
    EXPECT_EQ(bv.in_flight, b.in_flight);
    EXPECT_EQ(bv.requests_per_s, b.requests_per_s);
    EXPECT_EQ(bv.output_tokens_per_s, b.output_tokens_per_s);
    EXPECT_EQ(bv.ttft_mean_ms, b.ttft_mean_ms);
    EXPECT_EQ(bv.ttft_p99_ms, b.ttft_p99_ms);
    EXPECT_EQ(bv.field("in_flight"), static_cast<double>(b.in_flight));
  }
  EXPECT_EQ(v.telemetry, info.telemetry);
  EXPECT_FALSE(v.distributed);

  // The run facts of the config.
  EXPECT_EQ(v.facts.provider, "tgi-a10g");
  EXPECT_EQ(v.facts.scenario, "chat");
  EXPECT_EQ(v.facts.stage, "saturation");
  EXPECT_EQ(v.facts.sim_preset, "tgi");
  EXPECT_EQ(v.facts.base_url, "http://localhost:8080");
  EXPECT_EQ(v.facts.workload_scenario, "chat");
  EXPECT_EQ(v.facts.workload_input_tokens, 64);
  EXPECT_EQ(v.facts.workload_output_tokens, 16);
  EXPECT_EQ(v.facts.sim_time_scale, 0.005);
  EXPECT_EQ(v.facts.time_scale(), 0.005);
  EXPECT_EQ(v.facts.sim_seed, uint64_t{18446744073709551557u});
  EXPECT_EQ(v.facts.sim_replicas, 2);
  EXPECT_EQ(v.facts.max_error_rate, 0.05);
  EXPECT_DOUBLE_EQ(*error_rate(v),
                   static_cast<double>(s.requests.failed) / static_cast<double>(s.requests.total));
}

TEST(SummaryRead, OpenLoopAndEmptyRun) {
  metrics::RunInfo info = testing::fixture_info();
  info.load_mode = "open";
  info.target_rate = 12.5;
  info.max_concurrency = 0;
  const metrics::RunSummary s = metrics::summarize_run({}, info);
  const SummaryView v = summary_from_json(summary_to_json(s, info));
  EXPECT_EQ(v.load.mode, "open");
  EXPECT_EQ(v.load.target_rate, 12.5);
  EXPECT_FALSE(v.load.max_concurrency);  // null: no cap
  EXPECT_FALSE(v.load.concurrency);
  EXPECT_EQ(v.requests.total, 0);
  EXPECT_FALSE(error_rate(v));
  EXPECT_EQ(v.metrics.e2e_ms.count, 0);
  EXPECT_FALSE(v.metrics.e2e_ms.p99);
  EXPECT_FALSE(v.quality);
  EXPECT_TRUE(v.classes.empty());
  EXPECT_TRUE(v.telemetry.is_null());
}

TEST(SummaryRead, OlderOrPartialSummariesReadAsEmptyOptionals) {
  for (const json& j : {json(nullptr), json::array(), json("x"), json::object()}) {
    const SummaryView v = summary_from_json(j);
    EXPECT_FALSE(v.schema);
    EXPECT_FALSE(v.requests.total);
    EXPECT_FALSE(v.metrics.e2e_ms.count);
    EXPECT_FALSE(v.throughput.requests_per_s);
    EXPECT_FALSE(v.facts.sim_time_scale);
    EXPECT_EQ(v.facts.time_scale(), 1);
    EXPECT_TRUE(v.load.mode.empty());
    EXPECT_TRUE(v.config.is_object());
    EXPECT_TRUE(v.telemetry.is_null());
  }
  // Wrong types, nulls and partial blocks: what is there is read, the rest is empty.
  const json j = {{"schema", 1},
                  {"config", {{"provider", 3}, {"sim_time_scale", "fast"}, {"sim_seed", -1.5}}},
                  {"run", {{"requests", {{"total", 10}, {"failed", nullptr}}}}},
                  {"metrics", {{"e2e_ms", {{"p99", 180}}}, {"ttft_ms", "n/a"}}},
                  {"errors", {{"timeout", 2}, {"odd", "x"}}},
                  {"classes", {{"chat", 1}, {"long", 2}}},
                  {"timeseries", {{{"t_s", 0}}, 7}}};
  const SummaryView v = summary_from_json(j);
  EXPECT_FALSE(v.schema);
  EXPECT_FALSE(v.facts.provider);
  EXPECT_FALSE(v.facts.sim_time_scale);
  EXPECT_FALSE(v.facts.sim_seed);
  EXPECT_EQ(v.requests.total, 10);
  EXPECT_FALSE(v.requests.failed);
  EXPECT_EQ(error_rate(v), 0);
  EXPECT_EQ(v.metrics.e2e_ms.p99, 180);
  EXPECT_FALSE(v.metrics.e2e_ms.count);
  EXPECT_FALSE(v.metrics.ttft_ms.p99);
  EXPECT_EQ(v.errors, (ErrorsView{{"timeout", 2}}));
  ASSERT_EQ(v.classes.size(), 2u);
  EXPECT_FALSE(v.classes.at("chat").requests.total);
  ASSERT_EQ(v.timeseries.size(), 2u);
  EXPECT_EQ(v.timeseries[0].t_s, 0);
  EXPECT_FALSE(v.timeseries[1].t_s);
}

TEST(SummaryRead, DistributedBlock) {
  const json j = {
      {"run", {{"incomplete", true}, {"missing_ranks", {"node2:1"}}}},
      {"distributed",
       {{"ranks_total", 2},
        {"ranks_done", 1},
        {"clock", "common"},
        {"ranks",
         {{{"rank", 0},
           {"host", "node1"},
           {"name", "node1:0"},
           {"state", "done"},
           {"clock_offset_ms", 0.0},
           {"clock_uncertainty_ms", 0.01},
           {"records", 8},
           {"requests", {{"total", 8}, {"ok", 8}, {"failed", 0}, {"warmup", 0}}},
           {"throughput", {{"requests_per_s", 4.0}, {"output_tokens_per_s", nullptr}}},
           {"metrics", {{"e2e_ms", {{"count", 8}, {"p99", 12.5}}}}},
           {"load", {{"achieved_rate", 4.5}, {"late_sends", 1}}}},
          {{"rank", 1}, {"state", "failed"}, {"error", "unreachable"}, {"interrupted", true}}}}}}};
  const SummaryView v = summary_from_json(j);
  EXPECT_EQ(v.incomplete, true);
  EXPECT_EQ(v.missing_ranks, std::vector<std::string>{"node2:1"});
  ASSERT_TRUE(v.distributed);
  EXPECT_EQ(v.distributed->ranks_total, 2);
  EXPECT_EQ(v.distributed->ranks_done, 1);
  EXPECT_EQ(v.distributed->clock, "common");
  ASSERT_EQ(v.distributed->ranks.size(), 2u);
  const RankView& r0 = v.distributed->ranks[0];
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r0.host, "node1");
  EXPECT_EQ(r0.name, "node1:0");
  EXPECT_EQ(r0.state, "done");
  EXPECT_EQ(r0.clock_uncertainty_ms, 0.01);
  EXPECT_EQ(r0.records, 8);
  EXPECT_EQ(r0.requests.ok, 8);
  EXPECT_EQ(r0.throughput.requests_per_s, 4.0);
  EXPECT_FALSE(r0.throughput.output_tokens_per_s);
  EXPECT_EQ(r0.metrics.e2e_ms.p99, 12.5);
  EXPECT_EQ(r0.achieved_rate, 4.5);
  EXPECT_EQ(r0.late_sends, 1);
  EXPECT_FALSE(r0.error);
  const RankView& r1 = v.distributed->ranks[1];
  EXPECT_EQ(r1.state, "failed");
  EXPECT_EQ(r1.error, "unreachable");
  EXPECT_EQ(r1.interrupted, true);
  EXPECT_FALSE(r1.requests.total);
}

}  // namespace
}  // namespace sb::results
