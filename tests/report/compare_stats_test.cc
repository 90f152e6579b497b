// compare: bootstrap confidence intervals, significance, regression gates, outputs.
#include "report/compare_stats.h"

#include <gtest/gtest.h>

#include <random>

#include "common/error.h"
#include "run_folder_fixture.h"

namespace sb::report {
namespace {

using testing::synthetic_info;
using testing::synthetic_records;
using testing::temp_folder;
using testing::write_run;

RunData make_run(const std::string& name, uint64_t seed, double scale, int n = 200) {
  const auto d = temp_folder("cmp-" + name);
  write_run(d, synthetic_records(n, seed, scale), synthetic_info(4));
  return load_run_folder(d.string());
}

const MetricChange& find(const std::vector<MetricChange>& v, const std::string& name) {
  for (const auto& c : v)
    if (c.name == name) return c;
  throw std::runtime_error("no metric " + name);
}

TEST(CompareStats, PercentileInplaceMatchesNumpyLinear) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile_inplace(v, 50), 3);
  v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile_inplace(v, 90), 4.6);
  v = {7};
  EXPECT_DOUBLE_EQ(percentile_inplace(v, 99), 7);
}

TEST(CompareStats, DoubledLatencyIsASignificantRegression) {
  const RunData base = make_run("base", 1, 1.0), cand = make_run("slow", 2, 2.0);
  const auto changes = compare_runs(base, cand, {});
  ASSERT_EQ(changes.size(), compare_metric_names().size());
  for (const char* m : {"ttft_p50", "ttft_p99", "tpot_p50", "itl_p50", "e2e_p50", "e2e_p99"}) {
    const MetricChange& c = find(changes, m);
    ASSERT_TRUE(c.change_pct) << m;
    EXPECT_NEAR(*c.change_pct, 100, 15) << m;
    ASSERT_TRUE(c.ci_low_pct && c.ci_high_pct) << m;
    EXPECT_LE(*c.ci_low_pct, *c.change_pct) << m;
    EXPECT_GE(*c.ci_high_pct, *c.change_pct) << m;
    EXPECT_GT(*c.ci_low_pct, 50) << m;
    EXPECT_TRUE(c.significant) << m;
    EXPECT_TRUE(c.regression) << m;
  }
  const MetricChange& tp = find(changes, "throughput_rps");
  EXPECT_TRUE(tp.higher_is_better);
  EXPECT_NEAR(*tp.change_pct, -50, 8);
  EXPECT_TRUE(tp.regression);
  // The point values are the summary's.
  EXPECT_DOUBLE_EQ(*find(changes, "e2e_p99").baseline,
                   base.summary["metrics"]["e2e_ms"]["p99"].get<double>());
  EXPECT_DOUBLE_EQ(*tp.baseline, base.summary["throughput"]["requests_per_s"].get<double>());

  const auto failed = failed_gates(changes, {parse_regression_gate("e2e_p99:10")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].find("e2e_p99: +"), std::string::npos) << failed[0];
  EXPECT_EQ(failed_gates(changes, {parse_regression_gate("e2e:10")}).size(), 2u);
  EXPECT_EQ(failed_gates(changes, {parse_regression_gate("throughput:10")}).size(), 2u);
  EXPECT_TRUE(failed_gates(changes, {parse_regression_gate("e2e_p99:500")}).empty());
  // The other way round it is an improvement, never a regression.
  for (const auto& c : compare_runs(cand, base, {})) EXPECT_FALSE(c.regression) << c.name;
}

TEST(CompareStats, SameConfigurationIsNotFlagged) {
  for (uint64_t seed = 10; seed < 13; ++seed) {
    const RunData a = make_run("a", seed, 1.0), b = make_run("b", seed + 100, 1.0);
    const auto changes = compare_runs(a, b, {});
    for (const auto& c : changes) {
      EXPECT_FALSE(c.significant) << c.name << " seed " << seed << " change " << *c.change_pct;
      EXPECT_FALSE(c.regression) << c.name;
      if (c.ci_low_pct) {
        EXPECT_LE(*c.ci_low_pct, *c.ci_high_pct);
      }
    }
    EXPECT_TRUE(failed_gates(changes, {parse_regression_gate("e2e:5"),
                                       parse_regression_gate("throughput:5")})
                    .empty());
  }
}

TEST(CompareStats, DeterministicForASeed) {
  const RunData a = make_run("d1", 1, 1.0, 60), b = make_run("d2", 2, 1.1, 60);
  CompareOptions o;
  o.seed = 7;
  const auto x = compare_runs(a, b, o), y = compare_runs(a, b, o);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].ci_low_pct, y[i].ci_low_pct);
    EXPECT_EQ(x[i].ci_high_pct, y[i].ci_high_pct);
  }
}

// A run held in memory: n requests with lognormal latencies (x scale) and `gaps` inter-token
// gaps each that share a per-request factor (gaps of one request are not independent, which
// is why ITL resamples whole requests), completions at about 40 /s.
RunData big_run(uint64_t seed, double scale, size_t n, int gaps) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> lat(4, 0.5), factor(0, 0.4), jitter(0, 0.2);
  std::exponential_distribution<double> between(40);
  RunData r;
  r.has_requests = true;
  RequestSamples& s = r.samples;
  s.measured = s.ok = static_cast<int64_t>(n);
  s.first_send_ns = 0;
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    s.ttft_ms.push_back(scale * lat(rng));
    s.e2e_ms.push_back(scale * (lat(rng) + 100));
    s.tpot_ms.push_back(scale * lat(rng) / 10);
    const double f = factor(rng);
    for (int k = 0; k < gaps; ++k)
      s.itl_ms.push_back(static_cast<float>(scale * 5 * f * jitter(rng)));
    s.itl_begin.push_back(s.itl_ms.size());
    t += between(rng) * scale;
    s.completions.push_back({static_cast<int64_t>(t * 1e9), 16 + static_cast<int64_t>(i % 5)});
  }
  return r;
}

TEST(CompareStats, TheNormalLimitOfLargeRunsGivesTheBootstrapsIntervals) {
  const RunData a = big_run(1, 1.0, 10'000, 8), b = big_run(2, 1.03, 10'000, 8);
  CompareOptions exact, limit;
  exact.resamples = limit.resamples = 400;
  exact.exact_up_to = size_t{1} << 40;
  limit.exact_up_to = 0;
  const auto x = compare_runs(a, b, exact), y = compare_runs(a, b, limit);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(x[i].name);
    ASSERT_TRUE(x[i].ci_low_pct && y[i].ci_low_pct);
    EXPECT_EQ(x[i].change_pct, y[i].change_pct);  // the point values do not change
    EXPECT_EQ(y[i].resamples, 400);
    const double width = *x[i].ci_high_pct - *x[i].ci_low_pct;
    EXPECT_GT(width, 0);
    // Within the noise of 400 rounds' 2.5% and 97.5% quantiles of the exact bootstrap.
    EXPECT_NEAR(*y[i].ci_low_pct, *x[i].ci_low_pct, 0.15 * width);
    EXPECT_NEAR(*y[i].ci_high_pct, *x[i].ci_high_pct, 0.15 * width);
  }
  // ITL's agreement is the cluster bootstrap's: with a per-request factor of log-sd 0.4 over a
  // jitter of 0.2, 8 gaps a request are worth 8 / (1 + 7 x 0.8) = 1.2 independent ones, so
  // an interval for independent gaps would be sqrt(6.6) = 2.6 times too narrow.
}

TEST(CompareStats, GatesAndOptionsAreValidated) {
  for (const char* bad : {"e2e_p99", "e2e_p98:5", "e2e:x", "e2e:-1"}) {
    try {
      parse_regression_gate(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
    }
  }
  const RunData a = make_run("v", 1, 1.0, 20);
  CompareOptions o;
  o.confidence = 1.5;
  EXPECT_THROW(compare_runs(a, a, o), Error);
}

TEST(CompareStats, OutputsCarryTheNumbers) {
  const RunData base = make_run("o1", 1, 1.0, 50), cand = make_run("o2", 2, 2.0, 50);
  const auto changes = compare_runs(base, cand, {});
  const auto j = compare_to_json(changes, base, cand, {});
  EXPECT_EQ(j["schema"], "servebench.compare/1");
  ASSERT_EQ(j["metrics"].size(), changes.size());
  EXPECT_EQ(j["metrics"][0]["metric"], "ttft_p50");
  EXPECT_EQ(j["metrics"][0]["regression"], true);
  EXPECT_EQ(j["bootstrap"]["resamples"], 1000);
  EXPECT_EQ(j["metrics"][0]["resamples"], 1000);
  const std::string text = compare_to_text(changes, base, cand, {});
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
  EXPECT_NE(text.find("e2e_p99"), std::string::npos);
  const std::string html = compare_to_html(changes, base, cand, {});
  EXPECT_NE(html.find("<td class=\"REGRESSION\">REGRESSION</td>"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
}

TEST(CompareStats, EmptyRunsGiveNoChange) {
  const auto d = temp_folder("cmp-empty");
  write_run(d, {}, synthetic_info(1));
  const RunData e = load_run_folder(d.string());
  for (const auto& c : compare_runs(e, e, {})) {
    EXPECT_FALSE(c.change_pct) << c.name;
    EXPECT_FALSE(c.significant);
  }
}

}  // namespace
}  // namespace sb::report
