// report/economics.h: a run's economics from its summary (model time for a time-scaled
// simulator, per GPU) and the Pareto charts' frontiers (higher tokens per joule is better,
// lower $ per million tokens is better), labelled by backend and load.
#include "report/economics.h"

#include <gtest/gtest.h>

namespace sb::report {
namespace {

using nlohmann::json;

RunData run(const std::string& backend, int conc, double tok_s, double usd_per_m, double tok_per_j,
            double scale = 1) {
  RunData r;
  r.backend = backend;
  r.scenario = "chat";
  r.name = backend + std::to_string(conc);
  r.summary = {{"schema", "servebench.summary/1"},
               {"config", {{"gpus", 2}, {"hardware", "2x L4"}, {"sim_time_scale", scale}}},
               {"load", {{"mode", "closed"}, {"concurrency", conc}}},
               {"throughput", {{"output_tokens_per_s", tok_s}, {"window_s", 10}}},
               {"energy",
                {{"available", true},
                 {"mean_power_w", 150},
                 {"j_per_output_token", 1 / tok_per_j},
                 {"output_tokens_per_j", tok_per_j}}},
               {"cost", {{"usd_per_million_output_tokens", usd_per_m}}}};
  r.view = results::summary_from_json(r.summary);
  return r;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportEconomics, RunFiguresPerGpuAndInModelTime) {
  const RunEconomics e = economics_of(run("a", 4, 10, 2.5, 3, 0.1));
  EXPECT_EQ(e.gpus, 2);
  EXPECT_EQ(e.hardware, "2x L4");
  EXPECT_DOUBLE_EQ(*e.tokens_per_s, 1.0);  // 10 tok/s wall at x0.1 = 1 tok/s model
  EXPECT_DOUBLE_EQ(*e.tokens_per_s_per_gpu, 0.5);
  EXPECT_DOUBLE_EQ(*e.tokens_per_s_per_user, 0.25);
  EXPECT_DOUBLE_EQ(*e.usd_per_million_tokens, 2.5);
  EXPECT_DOUBLE_EQ(*e.tokens_per_j, 3);
  EXPECT_FALSE(e.j_per_token_above_idle);
}

TEST(ReportEconomics, ParetoFrontiersByDirection) {
  // a: x = tok/s per user 100, 75, 50 with cost 10, 3, 1.5; b at x = 50 costs 5 (dominated)
  // but makes more tokens per joule (on the energy frontier).
  std::vector<RunData> runs = {run("a", 1, 100, 10, 1), run("a", 4, 300, 3, 2),
                               run("a", 16, 800, 1.5, 3), run("b", 4, 200, 5, 9)};
  const auto charts = pareto_charts(group_runs(runs));
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].first, "pareto-chat");
  EXPECT_EQ(charts[1].first, "pareto-energy-chat");
  EXPECT_EQ(charts[2].first, "pareto-cost-chat");
  const std::string& cost = charts[2].second;
  const std::string front = "data-series=\"Pareto frontier\" data-x=";
  EXPECT_EQ(count(cost, front), 3u);
  EXPECT_EQ(cost.find(front + "\"50\" data-y=\"5\""), std::string::npos);  // b is dominated
  EXPECT_NE(cost.find(front + "\"50\" data-y=\"1.5\""), std::string::npos);
  EXPECT_NE(cost.find("data-label=\"b c4\""), std::string::npos);
  const std::string& energy = charts[1].second;
  EXPECT_NE(energy.find(front + "\"50\" data-y=\"9\""), std::string::npos);
  EXPECT_EQ(energy.find(front + "\"50\" data-y=\"3\""), std::string::npos);
  // Per GPU: a's c16 makes 800 tok/s on 2 GPUs.
  EXPECT_NE(charts[0].second.find("data-y=\"400\""), std::string::npos);
  EXPECT_TRUE(has_economics(runs));
}

}  // namespace
}  // namespace sb::report
