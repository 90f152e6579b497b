// "Where the time goes" in the report (report/time_split.h): per level from summary.json's
// decomposition (per-request server times, else histogram means), the sentence naming TTFT's
// dominant part, and the stacked bars.
#include <gtest/gtest.h>

#include "report/time_split.h"

namespace sb::report {
namespace {

nlohmann::json dist(double mean, int count = 100) {
  return {{"count", count}, {"mean", mean}};
}

// A run of `n` requests whose vLLM-style histograms give queue/prefill/decode means.
RunData hist_run(double ttft, double e2e, double queue, double prefill, double decode,
                 int n = 100) {
  RunData r;
  r.summary = {{"decomposition",
                {{"requests", n},
                 {"ttft_ms", dist(ttft, n)},
                 {"e2e_ms", dist(e2e, n)},
                 {"server", {{"source", "none"}, {"requests", 0}}},
                 {"server_histograms",
                  {{"source", "vllm_metrics"},
                   {"queue", {{"mean_ms", queue}}},
                   {"prefill", {{"mean_ms", prefill}}},
                   {"decode", {{"mean_ms", decode}}},
                   {"inference", nullptr}}}}}};
  return r;
}

Group group_of(const std::vector<RunData>& runs, const std::vector<double>& loads) {
  Group g;
  g.backend = "sim:tgi";
  g.scenario = "chat";
  g.load_kind = "concurrency";
  for (size_t i = 0; i < runs.size(); ++i) {
    Level l;
    l.run = &runs[i];
    l.load = loads[i];
    l.judged = true;
    g.levels.push_back(l);
  }
  return g;
}

TEST(TimeSplit, HistogramMeansAndWhatTheClientAdded) {
  const std::vector<RunData> runs = {hist_run(40, 600, 1, 35, 560),
                                     hist_run(1150, 2900, 810, 330, 1740)};
  const Group g = group_of(runs, {1, 128});
  const auto splits = time_splits(g);
  ASSERT_EQ(splits.size(), 2u);
  EXPECT_EQ(splits[1].source, "vllm_metrics");
  EXPECT_DOUBLE_EQ(*splits[1].queue_ms, 810);
  EXPECT_DOUBLE_EQ(*splits[1].client_network_ms, 2900 - 810 - 330 - 1740);
  EXPECT_DOUBLE_EQ(*splits[1].client_ttft_ms, 1150 - 810 - 330);
  const std::string s = time_sentence(g, splits);
  EXPECT_NE(s.find("at c=128 queueing is 70% of TTFT (810.0 ms of 1.15 s mean, n=100)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("the server is saturated"), std::string::npos) << s;
  EXPECT_NE(s.find("the client and the network added 10.0 ms"), std::string::npos) << s;
  // e2e grew 2300 ms, queue 809 ms of it.
  EXPECT_NE(s.find("From c=1 to c=128 mean e2e grew by 2.30 s, 35% of it queueing"),
            std::string::npos)
      << s;
  const auto chart = time_chart(g, splits, "t");
  ASSERT_TRUE(chart);
  EXPECT_TRUE(chart->stacked);
  EXPECT_EQ(chart->categories, (std::vector<std::string>{"c=1", "c=128"}));
  const std::string svg_text = svg::render_bar_chart(*chart);
  EXPECT_NE(svg_text.find("data-series=\"queue\" data-x=\"c=128\" data-y=\"810\""),
            std::string::npos);
}

TEST(TimeSplit, PerRequestTimesWinAndFewRequestsAreNeverTheAnswer) {
  RunData tgi;
  tgi.summary = {{"decomposition",
                  {{"requests", 50},
                   {"ttft_ms", dist(300, 50)},
                   {"e2e_ms", dist(300, 50)},
                   {"server",
                    {{"source", "tgi_headers"},
                     {"requests", 50},
                     {"queue_ms", dist(100, 50)},
                     {"prefill_ms", dist(0, 0)},
                     {"decode_ms", dist(0, 0)},
                     {"inference_ms", dist(190, 50)},
                     {"client_network_ms", dist(10, 50)}}}}}};
  const std::vector<RunData> runs = {tgi};
  Group g = group_of(runs, {8});
  const TimeSplit t = time_split(g.levels[0]);
  EXPECT_EQ(t.source, "tgi_headers");
  EXPECT_FALSE(t.prefill_ms);
  EXPECT_DOUBLE_EQ(*t.inference_ms, 190);
  EXPECT_DOUBLE_EQ(*t.client_network_ms, 10);
  EXPECT_FALSE(t.client_ttft_ms);  // TGI does not split prefill from decode
  EXPECT_NE(time_sentence(g, time_splits(g)).find("queueing is 33% of TTFT"), std::string::npos);
  g.levels[0].judged = false;  // too few requests: no sentence
  EXPECT_EQ(time_sentence(g, time_splits(g)), "");
}

TEST(TimeSplit, NoDecompositionNoChart) {
  RunData old;
  old.summary = {{"run", nlohmann::json::object()}};
  const std::vector<RunData> runs = {old};
  const Group g = group_of(runs, {4});
  EXPECT_FALSE(time_chart(g, time_splits(g), "t"));
  EXPECT_EQ(time_sentence(g, time_splits(g)), "");
}

}  // namespace
}  // namespace sb::report
