// A predicted run's telemetry past VirtualHooks::max_samples: the interval doubles and what
// was sampled is thinned to the new grid (SeriesStore::halve_resolution), which must give what
// sampling at the final interval from the start gives.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "predict/virtual_run.h"
#include "sim/metrics.h"
#include "telemetry/server_scrape.h"
#include "virtual_config.h"

namespace sb::predict {
namespace {

engine::EngineConfig long_run() {
  return testing::tgi_closed_loop(200, 100, 4, 120);
}

struct Sampled {
  telemetry::SeriesStore store;
  std::vector<int64_t> times_ns;  // of every page
  Nanos interval{0};              // of what is kept at the end
  int64_t end_ns = 0;             // the run's last request's end
};

// As plan/execute_run.cc's predict_run folds a virtual run's pages.
void sample(Sampled& out, Nanos interval, size_t max_samples) {
  telemetry::PageIngest ingest("server");
  VirtualHooks h;
  h.sample_interval = out.interval = interval;
  h.max_samples = max_samples;
  h.on_sample = [&](size_t, int64_t t_ns, const PromPage& page) {
    ingest.ingest(page, t_ns, out.store);
    out.times_ns.push_back(t_ns);
  };
  h.on_coarser = [&](Nanos finer) {
    EXPECT_EQ(finer, out.interval);
    out.store.halve_resolution(finer.count(), [](const telemetry::SeriesMeta& m) {
      return sim::SimMetrics::mean_since_last_scrape(m.name);
    });
    out.interval = 2 * finer;
  };
  const auto r = run_virtual(long_run(), {sim::preset_config("tgi")}, h);
  out.end_ns = std::llround(r.duration_s * 1e9);
}

TEST(CoarserSamples, TheIntervalDoublesAtTheBoundOnTheNextGrid) {
  Sampled a;
  sample(a, std::chrono::seconds(1), 8);
  ASSERT_GT(a.interval, std::chrono::seconds(8));  // the run models more than 64 s
  // 0..8 s every second, then 10..16 every 2 s, 20..32 every 4 s, ...
  int64_t step = 1'000'000'000, k = 0;
  for (size_t i = 0; i < a.times_ns.size(); ++i) {
    EXPECT_EQ(a.times_ns[i], k * step) << i;
    if (k == 8) {
      step *= 2;
      k = 4;
    }
    ++k;
  }
  EXPECT_EQ(Nanos(step), a.interval);
  // The last sample is the first at or after the run's end: the counters' totals are in it.
  ASSERT_GE(a.times_ns.size(), 2u);
  EXPECT_GE(a.times_ns.back(), a.end_ns - 1000);  // duration_s is a double of the end
  EXPECT_LT(a.times_ns[a.times_ns.size() - 2], a.end_ns);
  const auto q = a.store.points("server/tgi_queue_size");
  EXPECT_LE(q.size(), 9u);
  for (const auto& [t, v] : q) EXPECT_EQ(t % step, 0) << t;
}

TEST(CoarserSamples, WhatIsKeptIsWhatSamplingAtTheFinalIntervalGives) {
  Sampled fine, coarse;
  sample(fine, std::chrono::seconds(1), 8);
  sample(coarse, fine.interval, 0);
  EXPECT_EQ(coarse.interval, fine.interval);
  // Gauges of the state at the instant, and counters' rates.
  const Labels model = {{"model_name", sim::preset_config("tgi").model.name}};
  for (const std::string& key : std::vector<std::string>{
           "server/tgi_queue_size", "server/tgi_batch_current_size",
           "server/" + series_key("vllm:num_requests_running", model),
           "server/" + series_key("vllm:kv_cache_usage_perc", model), "server/tgi_request_count",
           "server/" + series_key("vllm:generation_tokens_total", model)}) {
    const auto a = fine.store.points(key), b = coarse.store.points(key);
    ASSERT_FALSE(b.empty()) << key;
    ASSERT_EQ(a.size(), b.size()) << key;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].first, b[i].first) << key;
      EXPECT_NEAR(a[i].second, b[i].second, 1e-9 * std::max(1.0, std::abs(b[i].second))) << key;
    }
  }
  EXPECT_EQ(fine.store.histograms_json(), coarse.store.histograms_json());
  // The power, a mean since the scrape before, is averaged in pairs: the same up to the page's
  // clamp at 100% of a step counted whole in the interval it starts in (a 1 s interval holds
  // ~30 steps here). GPU util, also such a mean, is rounded to whole percents on the page.
  std::string power;
  for (const std::string& key : coarse.store.keys())
    if (key.find("DCGM_FI_DEV_POWER_USAGE") != std::string::npos) power = key;
  const auto a = fine.store.points(power), b = coarse.store.points(power);
  ASSERT_FALSE(b.empty());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_NEAR(a[i].second, b[i].second, 0.03 * b[i].second) << a[i].first;
  }
}

TEST(CoarserSamples, ARateWithoutItsFirstHalfIsDropped) {
  telemetry::SeriesStore s;
  const telemetry::SeriesMeta rate{"server", "r_total", {}, "", "/s", "rate"};
  const telemetry::SeriesMeta gauge{"server", "g", {}, "", "", "gauge"};
  for (int64_t t : {0, 1, 2, 3, 4}) s.add(gauge, t, static_cast<double>(t));
  for (int64_t t : {1, 2, 4, 5, 6}) s.add(rate, t, static_cast<double>(10 * t));  // 3: a reset
  s.halve_resolution(1);
  EXPECT_EQ(s.points("server/g"),
            (std::vector<std::pair<int64_t, double>>{{0, 0}, {2, 2}, {4, 4}}));
  EXPECT_EQ(s.points("server/r_total"),
            (std::vector<std::pair<int64_t, double>>{{2, 15}, {6, 55}}));
}

TEST(CoarserSamples, AMeanOfTheIntervalBeforeIsAveragedInPairsAndTheFirstKept) {
  telemetry::SeriesStore s;
  const telemetry::SeriesMeta util{"server", "util", {}, "", "%", "gauge"};
  for (int64_t t : {0, 1, 2, 3, 4}) s.add(util, t, static_cast<double>(10 * t + 1));
  s.halve_resolution(1, [](const telemetry::SeriesMeta& m) { return m.name == "util"; });
  EXPECT_EQ(s.points("server/util"),
            (std::vector<std::pair<int64_t, double>>{{0, 1}, {2, 16}, {4, 36}}));
}

}  // namespace
}  // namespace sb::predict
