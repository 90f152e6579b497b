// SLA rules, grouping by backend and scenario, peak QPS, max stable load, recommendation.
#include "report/run_analysis.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::report {
namespace {

using nlohmann::json;

json summary(double conc, double rps, double p99_e2e, int total, int failed,
             const std::string& preset = "tgi") {
  return {
      {"schema", "servebench.summary/1"},
      {"config",
       {{"sim_preset", preset}, {"workload", {{"input_tokens", 64}, {"output_tokens", 16}}}}},
      {"run", {{"requests", {{"total", total}, {"ok", total - failed}, {"failed", failed}}}}},
      {"metrics",
       {{"e2e_ms", {{"p50", p99_e2e / 2}, {"p99", p99_e2e}}}, {"ttft_ms", {{"p99", p99_e2e / 4}}}}},
      {"throughput", {{"requests_per_s", rps}}},
      {"goodput", {{"fraction", 0.9}}},
      {"load", {{"mode", "closed"}, {"concurrency", conc}}}};
}

RunData run(const json& s, const std::string& name) {
  RunData r;
  r.name = name;
  r.summary = s;
  r.view = results::summary_from_json(s);
  r.backend = backend_of(s);
  r.scenario = scenario_of(s);
  return r;
}

TEST(Sla, ParsesRulesAndRejectsBadOnes) {
  const SlaRule r = parse_sla("p99_e2e_ms:200");
  EXPECT_EQ(r.stat, "p99");
  EXPECT_EQ(r.metric, "e2e_ms");
  EXPECT_EQ(r.limit, 200);
  EXPECT_FALSE(r.at_least);
  EXPECT_EQ(r.describe(), "P99 e2e <= 200 ms");
  EXPECT_EQ(parse_sla("p90_ttft:50").metric, "ttft_ms");
  EXPECT_TRUE(parse_sla("min_rps:10").at_least);
  EXPECT_EQ(parse_sla("error_rate_pct:1").describe(), "error rate <= 1%");
  for (const char* bad :
       {"p99_e2e_ms", "p98_e2e_ms:1", "p99_foo_ms:1", "p99_e2e_ms:abc", "p99_e2e_ms:-1", "x:1"}) {
    try {
      parse_sla(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("--sla"), std::string::npos);
    }
  }
}

TEST(Sla, ChecksWithNumbers) {
  const json s = summary(4, 50, 180, 100, 2);
  const auto res = check_sla(
      s, {parse_sla("p99_e2e_ms:200"), parse_sla("p99_ttft_ms:40"), parse_sla("error_rate_pct:1"),
          parse_sla("min_rps:40"), parse_sla("min_goodput_pct:95"), parse_sla("p50_itl_ms:1")});
  ASSERT_EQ(res.size(), 6u);
  EXPECT_TRUE(res[0].pass);
  EXPECT_EQ(*res[0].value, 180);
  EXPECT_FALSE(res[1].pass);  // ttft p99 = 45
  EXPECT_EQ(*res[1].value, 45);
  EXPECT_FALSE(res[2].pass);  // 2%
  EXPECT_DOUBLE_EQ(*res[2].value, 2);
  EXPECT_TRUE(res[3].pass);
  EXPECT_FALSE(res[4].pass);  // 90%
  EXPECT_FALSE(res[5].pass);  // no itl in the summary: fails, no value
  EXPECT_FALSE(res[5].value.has_value());
}

TEST(Analysis, GroupsRunsByBackendScenarioAndSortsThemByLoad) {
  std::vector<RunData> runs = {
      run(summary(16, 90, 400, 100, 0), "c16"), run(summary(4, 40, 120, 100, 0), "c4"),
      run(summary(8, 70, 180, 100, 0), "c8"), run(summary(32, 85, 900, 100, 5), "c32")};
  const auto groups = group_runs(runs);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].name(), "sim:tgi · in64/out16");
  ASSERT_EQ(groups[0].runs.size(), 4u);
  std::vector<std::string> order;
  for (const RunData* r : groups[0].runs) order.push_back(r->name);
  EXPECT_EQ(order, (std::vector<std::string>{"c4", "c8", "c16", "c32"}));
}

TEST(Analysis, WithoutSlaRulesARunIsHeldToItsOwnGoodputBoundsInModelTime) {
  json s = summary(8, 70, 180, 100, 0);
  s["goodput"]["slo"] = {{"e2e_ms", 200}};
  EXPECT_TRUE(is_stable(s, {}, 0.05));
  s["config"]["sim_time_scale"] = 0.5;  // 180 ms wall = 360 ms of model time
  EXPECT_FALSE(is_stable(s, {}, 0.05));
  EXPECT_TRUE(is_stable(s, {parse_sla("p99_e2e_ms:400")}, 0.05));
}

}  // namespace
}  // namespace sb::report
