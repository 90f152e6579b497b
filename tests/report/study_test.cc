// The study's tables and recommendation on run folders written from hand-built records:
// sample sizes, insufficient cells, intervals, the decision per scenario and honest time.
#include "report/study.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "common/error.h"
#include "report/gpu_use.h"
#include "report/html_report.h"
#include "report/recommendation.h"
#include "report/study_tables.h"
#include "run_folder_fixture.h"

namespace sb::report {
namespace {

namespace fs = std::filesystem;
using testing::synthetic_info;
using testing::synthetic_records;
using testing::temp_folder;
using testing::write_run;

struct RunSpec {
  std::string backend, scenario;
  int concurrency = 4;
  int requests = 40;
  double slowdown = 1;  // multiplies TTFT and token gaps (e2e ~ 95 ms at 1)
  int overloaded = 0;   // of `requests`, this many are rejected (503, TGI overloaded)
  double time_scale = 1;
};

void write(const fs::path& root, const RunSpec& r, uint64_t seed) {
  auto records = synthetic_records(r.requests, seed, r.slowdown, r.concurrency);
  for (int i = 0; i < r.overloaded; ++i) {
    auto& rec = records[static_cast<size_t>(r.requests - 1 - i)];
    rec.error_class = ErrorClass::overloaded;
    rec.status = 503;
    rec.t_first_ns = rec.t_first_content_ns = rec.t_last_ns = metrics::kNoTime;
    rec.itl_ms.clear();
    rec.output_tokens = 0;
  }
  metrics::RunInfo info = synthetic_info(r.concurrency);
  info.config["provider"] = r.backend;
  info.config["scenario"] = r.scenario;
  if (r.time_scale != 1) info.config["sim_time_scale"] = r.time_scale;
  info.slo = {};
  info.slo.e2e_ms = 200;  // the plan's --goodput e2e:200: the SLO the study checks
  write_run(root / fmt::format("{}-{}-c{}", r.backend, r.scenario, r.concurrency), records, info);
}

std::vector<RunData> runs_of(const fs::path& root, const std::vector<RunSpec>& specs) {
  uint64_t seed = 1;
  for (const RunSpec& s : specs) write(root, s, seed++);
  return load_runs({root.string()});
}

const Recommendation& rec_for(const std::vector<Recommendation>& recs, const std::string& sc) {
  for (const auto& r : recs)
    if (r.scenario == sc) return r;
  throw std::runtime_error("no recommendation for " + sc);
}

const Table& table(const std::vector<Table>& ts, const std::string& id) {
  for (const auto& t : ts)
    if (t.id == id) return t;
  throw std::runtime_error("no table " + id);
}

TEST(Study, TgiWinsChatAndLosesLongToItsOverloadErrors) {
  const auto d = temp_folder("study-decision");
  std::vector<RunSpec> specs;
  for (int c : {4, 16, 64}) {
    specs.push_back({"tgi", "chat", c, 40, 1.0});
    specs.push_back({"fastapi", "chat", c, 40, c == 64 ? 3.0 : 1.0});  // P99 e2e ~ 290 ms at 64
    specs.push_back({"tgi", "long", c, 40, 1.0, c == 64 ? 20 : 0});    // 50% rejected at 64
    specs.push_back({"fastapi", "long", c, 40, 1.0});
  }
  const auto runs = runs_of(d, specs);
  const Study st = analyse_study(runs, {});
  ASSERT_TRUE(st.at_load);
  EXPECT_EQ(*st.at_load, 64);
  const auto recs = recommend(st);
  ASSERT_EQ(recs.size(), 2u);

  const Recommendation& chat = rec_for(recs, "chat");
  ASSERT_TRUE(chat.winner);
  EXPECT_EQ(*chat.winner, "tgi");
  EXPECT_EQ(*chat.load, 64);
  EXPECT_NE(chat.text.find("meets the SLOs up to concurrency 64"), std::string::npos) << chat.text;
  EXPECT_NE(chat.text.find("4× the load of the runner-up, fastapi (concurrency 16)"),
            std::string::npos)
      << chat.text;
  EXPECT_NE(chat.text.find("fastapi loses: stable up to concurrency 16; past the SLO at "
                           "concurrency 64: P99 e2e"),
            std::string::npos)
      << chat.text;

  const Recommendation& lng = rec_for(recs, "long");
  ASSERT_TRUE(lng.winner);
  EXPECT_EQ(*lng.winner, "fastapi");
  EXPECT_NE(lng.text.find("tgi loses: stable up to concurrency 16; errors at concurrency 64: 50% "
                          "of 40 requests failed (overloaded 20"),
            std::string::npos)
      << lng.text;

  // The tables say the same: tgi long fails at 64, its P99 there is from its 20 ok requests.
  const auto ts = study_tables(st);
  const Table& peak = table(ts, "study-peak");
  bool seen = false;
  for (const auto& row : peak.rows)
    if (row[0] == "tgi" && row[1] == "long") {
      seen = true;
      EXPECT_EQ(row[5], "concurrency 16");
      EXPECT_NE(row[6].find("errors at concurrency 64"), std::string::npos);
    }
  EXPECT_TRUE(seen);
  const Table& p99 = table(ts, "study-p99");
  EXPECT_EQ(p99.header, (std::vector<std::string>{"backend", "chat", "long"}));
  ASSERT_EQ(p99.rows.size(), 2u);
  const auto& tgi_row = p99.rows[0][0] == "tgi" ? p99.rows[0] : p99.rows[1];
  EXPECT_EQ(tgi_row[0], "tgi");
  EXPECT_EQ(tgi_row[2], "insufficient (n=20) · 50% errors (overloaded)");
}

TEST(Study, CellsCarryTheirSampleSizeAndTheSummarysValue) {
  const auto d = temp_folder("study-cells");
  const auto runs = runs_of(d, {{"tgi", "chat", 8, 60, 1.0}});
  const Study st = analyse_study(runs, {});
  const auto ts = study_tables(st);
  const Table& p99 = table(ts, "study-p99");
  const double v = runs[0].summary["metrics"]["e2e_ms"]["p99"];
  ASSERT_EQ(p99.rows.size(), 1u);
  EXPECT_EQ(p99.rows[0][1].rfind(fmt::format("{:.3g} ms [", v), 0), 0u) << p99.rows[0][1];
  // 60 samples: the P99's upper bound lies beyond the largest sample.
  EXPECT_NE(p99.rows[0][1].find(", >"), std::string::npos) << p99.rows[0][1];
  EXPECT_NE(p99.rows[0][1].find(" n=60"), std::string::npos) << p99.rows[0][1];
}

TEST(Study, ALevelWithOneRequestIsInsufficientNotAPeak) {
  const auto d = temp_folder("study-one");
  // c=1 with a single request: its "throughput" (1 request over its own ~95 ms) would beat
  // c=4's, but one sample is no evidence.
  const auto runs = runs_of(d, {{"pytorch", "long", 1, 1, 0.2}, {"pytorch", "long", 4, 40, 1.0}});
  const Study st = analyse_study(runs, {});
  const Group* g = st.group("pytorch", "long");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->levels.size(), 2u);
  EXPECT_FALSE(g->levels[0].judged);
  ASSERT_TRUE(g->peak);
  EXPECT_EQ(g->levels[*g->peak].load, 4);
  const auto peak = table(study_tables(st), "study-peak");
  EXPECT_EQ(peak.rows[0][3], "concurrency 4");

  StudyOptions at1;
  at1.at_concurrency = 1;
  const auto ts = study_tables(analyse_study(runs, at1));
  EXPECT_EQ(table(ts, "study-p99").rows[0][1], "insufficient (n=1)");
  EXPECT_EQ(table(ts, "study-ttft").rows[0][2], "insufficient (n=1)");
  EXPECT_EQ(table(ts, "study-ttft").rows[0][3], "insufficient (n=1)");

  // Only the single-request level: no peak, no stable load, no winner.
  const auto d2 = temp_folder("study-one-only");
  const auto only = runs_of(d2, {{"pytorch", "long", 1, 1, 0.2}});
  const Study st2 = analyse_study(only, {});
  EXPECT_FALSE(st2.groups[0].peak);
  EXPECT_FALSE(st2.groups[0].max_stable);
  EXPECT_EQ(table(study_tables(st2), "study-peak").rows[0][2], "insufficient (n=1)");
  const auto recs = recommend(st2);
  EXPECT_FALSE(recs[0].winner);
  EXPECT_NE(recs[0].text.find("no backend meets the SLOs"), std::string::npos);
}

TEST(Study, NoBackendMeetsTheSloSaysSoAndWhy) {
  const auto d = temp_folder("study-none");
  const auto runs = runs_of(d, {{"tgi", "chat", 4, 40, 5.0}, {"fastapi", "chat", 4, 40, 1.0, 10}});
  const auto recs = recommend(analyse_study(runs, {}));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_FALSE(recs[0].winner);
  EXPECT_NE(recs[0].text.find("chat: no backend meets the SLOs (P99 e2e <= 200 ms (the runs' "
                              "--goodput), error rate <= 5%)"),
            std::string::npos)
      << recs[0].text;
  EXPECT_NE(recs[0].text.find("tgi: past the SLO at concurrency 4: P99 e2e"), std::string::npos)
      << recs[0].text;
  EXPECT_NE(recs[0].text.find("fastapi: errors at concurrency 4: 25% of 40 requests failed"),
            std::string::npos)
      << recs[0].text;
}

TEST(Study, TimeScaledRunsSaySoAndAreCheckedInModelTime) {
  const auto d = temp_folder("study-scale");
  // P99 e2e ~ 102 ms wall at x0.6 = ~170 ms model: within e2e:200; slowdown 1.2: ~204 ms.
  const auto runs =
      runs_of(d, {{"tgi", "chat", 4, 40, 1.0, 0, 0.6}, {"tgi", "chat", 8, 40, 1.2, 0, 0.6}});
  const Study st = analyse_study(runs, {});
  ASSERT_EQ(st.scales, std::vector<double>{0.6});
  ASSERT_TRUE(st.groups[0].max_stable);
  EXPECT_EQ(*st.groups[0].max_stable, 4);
  for (const Table& t : study_tables(st))
    EXPECT_NE(t.title.find("simulated at ×0.6"), std::string::npos) << t.title;
  const std::string text = study_text(st);
  EXPECT_NE(text.find("Simulated at ×0.6: times are wall-clock"), std::string::npos) << text;
  EXPECT_NE(text.find(" ≈"), std::string::npos);  // model time beside the wall-clock value
  // The HTML says it too.
  const std::string html = render_html_report(runs, {});
  EXPECT_NE(html.find("simulated at ×0.6"), std::string::npos);
}

TEST(Study, ThePeakOfATimeScaledRunIsGivenInModelTimeAsItsSloMissesAre) {
  const auto d = temp_folder("study-scale-peak");
  // Latency grows with the load (slowdown 1, 2, 4 at concurrency 4, 8, 16): throughput is flat.
  const auto runs = runs_of(d, {{"tgi", "chat", 4, 40, 1.0, 0, 0.5},
                                {"tgi", "chat", 8, 40, 2.0, 0, 0.5},
                                {"tgi", "chat", 16, 40, 4.0, 0, 0.5}});
  const Study st = analyse_study(runs, {});
  ASSERT_EQ(st.groups.size(), 1u);
  const Group& g = st.groups[0];
  ASSERT_TRUE(g.knee);
  ASSERT_TRUE(g.peak);
  const double wall_qps = *g.levels[*g.peak].qps;
  const std::string why = why_it_stops(g, st);
  EXPECT_NE(why.find(fmt::format("(peak ≈{:.4g} req/s in model time, {:.4g} wall)", wall_qps * 0.5,
                                 wall_qps)),
            std::string::npos)
      << why;
}

TEST(Study, AOneWaveLevelsThroughputIsShownButNeverThePeak) {
  const auto d = temp_folder("study-one-wave");
  // Concurrency 4 and 8: 10 and 5 requests per client (sustained); 64: 40 requests, fewer
  // than one per client, finished sooner (slowdown 0.5): the highest QPS, but one wave.
  const auto runs = runs_of(
      d, {{"tgi", "chat", 4, 40, 1.0}, {"tgi", "chat", 8, 40, 1.0}, {"tgi", "chat", 64, 40, 0.5}});
  const Study st = analyse_study(runs, {});
  ASSERT_EQ(st.groups.size(), 1u);
  const Group& g = st.groups[0];
  ASSERT_EQ(g.levels.size(), 3u);
  const Level& wave = g.levels[2];
  ASSERT_TRUE(wave.judged);
  EXPECT_FALSE(wave.sustained);
  EXPECT_TRUE(g.levels[0].sustained && g.levels[1].sustained);
  ASSERT_TRUE(wave.qps && g.levels[1].qps);
  ASSERT_GT(*wave.qps, *g.levels[1].qps) << "the fixture must make the wave look fastest";
  ASSERT_TRUE(g.peak);
  EXPECT_NE(*g.peak, 2u) << "a wave is no peak";
  EXPECT_NE(why_it_stops(g, st).find("the throughput at concurrency 64 is one wave (fewer than 2 "
                                     "requests per client), not a sustained rate: not ranked"),
            std::string::npos)
      << why_it_stops(g, st);
}

TEST(Study, AtConcurrencyMustNameARunLevel) {
  const auto d = temp_folder("study-at");
  const auto runs = runs_of(d, {{"tgi", "chat", 4, 40, 1.0}});
  StudyOptions o;
  o.at_concurrency = 200;
  try {
    analyse_study(runs, o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("runs at 4"), std::string::npos) << e.what();
  }
}

TEST(Intervals, OrderStatisticIntervalOfTheMedianAndP99) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const Interval m = percentile_interval(v, 50);
  EXPECT_EQ(m.lo, 40);  // the textbook ranks for n = 100: 40 and 61
  EXPECT_EQ(m.hi, 61);
  EXPECT_FALSE(m.lo_open || m.hi_open);
  const Interval p99 = percentile_interval(std::span(v).first(30), 99);
  EXPECT_TRUE(p99.hi_open);  // 0.99^30 > 2.5%: no sample bounds it from above
  EXPECT_FALSE(p99.lo_open);
  // n = 100,000 (the CDF summed only near its mean): the ranks are n p -+ 1.96 sqrt(n p (1 - p))
  // (the binomial's normal limit, within a rank or two at this n).
  std::vector<double> w;
  for (int i = 1; i <= 100'000; ++i) w.push_back(i);
  for (const double p : {50.0, 99.0}) {
    const Interval c = percentile_interval(w, p);
    const double q = p / 100, sd = std::sqrt(1e5 * q * (1 - q));
    EXPECT_NEAR(c.lo, 1e5 * q - 1.96 * sd, 2.5) << p;
    EXPECT_NEAR(c.hi, 1e5 * q + 1.96 * sd + 1, 2.5) << p;
    EXPECT_FALSE(c.lo_open || c.hi_open);
  }
  const Interval mean = mean_interval(v);
  EXPECT_LT(mean.lo, 50.5);
  EXPECT_GT(mean.hi, 50.5);
  EXPECT_EQ(mean_interval(v).lo, mean.lo);  // seeded
}

TEST(Intervals, ARateIntervalOfManyGapsFromTheBootstrapsNormalLimitMatchesTheBootstrap) {
  // Skewed gaps (exponential, the completions of a Poisson process at 40 /s): 60,000 of them,
  // the interval once by resampling and once from the normal limit of the resampled sums.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> gap(40);
  std::vector<double> gaps(60'000);
  for (double& g : gaps) g = gap(rng);
  double sum = 0;
  for (double g : gaps) sum += g;
  const double rate = static_cast<double>(gaps.size()) / sum;
  const Interval exact = rate_interval(gaps, kConfidence, 1000, 1, /*exact_up_to=*/gaps.size());
  const Interval normal = rate_interval(gaps, kConfidence, 1000, 1, /*exact_up_to=*/0);
  const double width = exact.hi - exact.lo;  // about 2 x 1.96 / sqrt(n) of the rate: 1.6%
  EXPECT_NEAR(width / rate, 2 * 1.96 / std::sqrt(60'000.0), 0.002);
  EXPECT_LT(exact.lo, rate);
  EXPECT_GT(exact.hi, rate);
  // The two agree within the resampling noise of 1,000 rounds' 2.5% and 97.5% quantiles.
  EXPECT_NEAR(normal.lo, exact.lo, 0.1 * width);
  EXPECT_NEAR(normal.hi, exact.hi, 0.1 * width);
  EXPECT_EQ(rate_interval(gaps, kConfidence, 1000, 1, 0).lo, normal.lo);  // seeded
}

TEST(GpuUse, FromDcgmSeriesOfTheTelemetryBlock) {
  const nlohmann::json s = {{"telemetry",
                             {{"series",
                               {{{"name", "DCGM_FI_DEV_FB_USED"},
                                 {"source", "server"},
                                 {"unit", "MiB"},
                                 {"count", 3},
                                 {"mean", 15000},
                                 {"max", 16123}},
                                {{"name", "DCGM_FI_DEV_GPU_UTIL"},
                                 {"source", "server"},
                                 {"unit", "%"},
                                 {"count", 3},
                                 {"mean", 80},
                                 {"max", 90},
                                 {"points", {{0.1, 70}, {0.2, 80}, {0.3, 90}}}},
                                {{"name", "DCGM_FI_DEV_MEM_COPY_UTIL"},
                                 {"source", "server"},
                                 {"unit", "%"},
                                 {"count", 3},
                                 {"mean", 60},
                                 {"max", 70}}}}}}};
  const GpuUse g = gpu_use_of(s);
  EXPECT_EQ(*g.mem_used_peak_mib, 16123);
  EXPECT_EQ(*g.sm_util_mean_pct, 80);
  EXPECT_EQ(*g.mem_bw_util_mean_pct, 60);
  EXPECT_EQ(g.samples, 3);
  EXPECT_EQ(g.sm_util_points.size(), 3u);
  EXPECT_FALSE(gpu_use_of(nlohmann::json::object()).any());
}

}  // namespace
}  // namespace sb::report
