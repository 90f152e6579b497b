// PageIngest works out what each sample of a page is once per layout and reuses it while the
// pages keep their samples in the same order. These tests hold the reuse to the rules applied
// afresh: the same pages with their samples shuffled (a new layout every page) must fold into
// the same series, and a page whose layout changes is folded by its own samples only.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "telemetry/prom_text.h"
#include "telemetry/server_scrape.h"

namespace sb::telemetry {
namespace {

std::string page_text(int k) {
  return fmt::format(
      "# TYPE q gauge\nq{{model=\"m\"}} {}\n"
      "# TYPE req counter\nreq_total {}\n"
      "done_total {}\n"  // untyped, _total: a rate
      "# TYPE lat histogram\n"
      "lat_bucket{{model=\"m\",le=\"0.1\"}} {}\nlat_bucket{{model=\"m\",le=\"1\"}} {}\n"
      "lat_bucket{{model=\"m\",le=\"+Inf\"}} {}\nlat_sum{{model=\"m\"}} {}\n"
      "lat_count{{model=\"m\"}} {}\n"
      "# TYPE rpc summary\nrpc{{quantile=\"0.5\"}} {}\nrpc_sum {}\nrpc_count {}\n",
      k % 3, 100 + 10 * k, 7 * k, k, 2 * k, 3 * k, 0.5 * k, 3 * k, 1.5 + k, 2.5 * k, 4 * k);
}

void expect_same_store(const SeriesStore& a, const SeriesStore& b) {
  ASSERT_EQ(a.keys(), b.keys());
  for (const std::string& key : a.keys()) EXPECT_EQ(a.points(key), b.points(key)) << key;
  EXPECT_EQ(a.histograms_json(), b.histograms_json());
  EXPECT_EQ(a.series_json(), b.series_json());
}

TEST(PageIngestLayout, PagesInOneOrderFoldAsTheSamePagesShuffled) {
  SeriesStore fixed, shuffled;
  PageIngest in_order("server"), reordered("server");
  std::mt19937 rng(7);
  for (int k = 0; k < 8; ++k) {
    const int64_t t_ns = int64_t{k} * 1'000'000'000;
    PromPage page = parse_prom_text(page_text(k));
    in_order.ingest(page, t_ns, fixed);
    std::shuffle(page.samples.begin(), page.samples.end(), rng);
    reordered.ingest(page, t_ns, shuffled);
  }
  expect_same_store(fixed, shuffled);
  EXPECT_EQ(fixed.points("server/req_total").size(), 7u);  // rates from the second page on
  EXPECT_EQ(fixed.points("server/req_total")[0].second, 10);
  EXPECT_EQ(fixed.points("server/q{model=\"m\"}").size(), 8u);
  const auto h = fixed.histograms_json();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0]["count"], 21);  // 3 x 7 - 0
  EXPECT_EQ(h[0]["buckets"][1][1], 14);
}

TEST(PageIngestLayout, AChangedLayoutIsFoldedByItsOwnSamples) {
  SeriesStore store;
  PageIngest in("server");
  const auto ingest = [&](const std::string& text, int64_t t_s) {
    in.ingest(parse_prom_text(text), t_s * 1'000'000'000, store);
  };
  const std::string hist = "# TYPE lat histogram\n";
  ingest(hist +
             "lat_bucket{le=\"0.1\"} 1\nlat_bucket{le=\"1\"} 2\nlat_bucket{le=\"+Inf\"} 3\n"
             "lat_sum 1\nlat_count 3\nreq_total 10\n",
         0);
  ingest(hist +
             "lat_bucket{le=\"0.1\"} 1\nlat_bucket{le=\"1\"} 2\nlat_bucket{le=\"+Inf\"} 3\n"
             "lat_sum 1\nlat_count 3\nreq_total 20\n",
         1);
  // The `1` bucket and the _sum are gone, a gauge came first: every sample moved.
  ingest("g 5\n" + hist +
             "lat_bucket{le=\"0.1\"} 4\nlat_bucket{le=\"+Inf\"} 9\nlat_count 9\n"
             "req_total 40\n",
         2);
  auto h = store.histograms_json();
  ASSERT_EQ(h.size(), 1u);
  ASSERT_EQ(h[0]["buckets"].size(), 2u);  // the page's own buckets
  EXPECT_EQ(h[0]["buckets"][0][1], 3);
  EXPECT_EQ(h[0]["buckets"][1][1], 6);
  EXPECT_EQ(h[0]["count"], 6);
  EXPECT_EQ(h[0]["sum"], -1);  // no _sum line: 0, as on any page without one
  EXPECT_EQ(store.points("server/req_total"),
            (std::vector<std::pair<int64_t, double>>{{1'000'000'000, 10}, {2'000'000'000, 20}}));
  EXPECT_EQ(store.points("server/g").size(), 1u);
  // Back to the first layout: the `1` bucket counts from the first page again.
  ingest(hist +
             "lat_bucket{le=\"0.1\"} 5\nlat_bucket{le=\"1\"} 8\nlat_bucket{le=\"+Inf\"} 12\n"
             "lat_sum 4\nlat_count 12\nreq_total 50\n",
         3);
  h = store.histograms_json();
  ASSERT_EQ(h[0]["buckets"].size(), 3u);
  EXPECT_EQ(h[0]["buckets"][1][1], 6);
  EXPECT_EQ(h[0]["sum"], 3);
  EXPECT_EQ(store.points("server/req_total").back().second, 10);
}

// A page refilled in place (the simulator's, PromPageFill) carries a layout id, and the ingest
// trusts it instead of comparing every sample: folding such pages must give what the same pages
// give as parsed text (no id: compared sample by sample), a layout change midway included.
TEST(PageIngestLayout, AFilledPagesLayoutIdFoldsAsItsText) {
  SeriesStore by_id, by_text;
  PageIngest filled_in("server"), parsed_in("server");
  PromPage page;
  const std::vector<std::string> le = {"0.1", "1"};
  for (int k = 0; k < 9; ++k) {
    {
      PromPageFill p(page);
      if (k >= 3 && k < 6) {  // a gauge first and another model: every sample moves
        p.family("g", PromType::gauge);
        p.sample("g", {}, k);
      }
      const Labels model = {{"model", k >= 3 && k < 6 ? "b" : "a"}};
      p.family("q", PromType::gauge);
      p.sample("q", model, k % 3);
      p.family("req_total", PromType::counter);
      p.sample("req_total", {}, 100 + 10 * k);
      p.family("lat", PromType::histogram);
      p.histogram("lat", model, le,
                  std::vector<uint64_t>{static_cast<uint64_t>(k), static_cast<uint64_t>(2 * k), 1},
                  0.5 * k);
    }
    ASSERT_NE(page.layout_id, 0u);
    const int64_t t_ns = int64_t{k} * 1'000'000'000;
    filled_in.ingest(page, t_ns, by_id);
    const PromPage parsed = parse_prom_text(prom_text_of(page));
    ASSERT_EQ(parsed.layout_id, 0u);
    parsed_in.ingest(parsed, t_ns, by_text);
  }
  expect_same_store(by_id, by_text);
  EXPECT_EQ(by_id.points("server/g").size(), 3u);
  EXPECT_EQ(by_id.points("server/q{model=\"b\"}").size(), 3u);
  EXPECT_EQ(by_id.points("server/req_total").size(), 8u);
}

// The layout points into the ingest's own maps; a moved ingest (a vector of them growing, one per
// replica) keeps folding where the first left off.
TEST(PageIngestLayout, AMovedIngestGoesOnFromItsLayout) {
  SeriesStore moved_store, kept_store;
  PageIngest kept("server");
  std::vector<PageIngest> ingests;
  ingests.emplace_back("server");
  for (int k = 0; k < 6; ++k) {
    if (k == 3)
      for (int more = 0; more < 8; ++more) ingests.emplace_back("other");  // reallocates
    const PromPage page = parse_prom_text(page_text(k));
    ingests[0].ingest(page, int64_t{k} * 1'000'000'000, moved_store);
    kept.ingest(page, int64_t{k} * 1'000'000'000, kept_store);
  }
  expect_same_store(moved_store, kept_store);
  EXPECT_EQ(moved_store.points("server/req_total").size(), 5u);
}

TEST(PageIngestLayout, ABucketWithoutANumberIsSkippedOnEveryPageOfItsLayout) {
  SeriesStore store;
  PageIngest in("server");
  for (int k = 1; k <= 3; ++k)
    in.ingest(parse_prom_text(fmt::format("# TYPE lat histogram\nlat_bucket{{le=\"x\"}} {}\n"
                                          "lat_bucket{{le=\"+Inf\"}} {}\nlat_count {}\n",
                                          k, 2 * k, 2 * k)),
              k, store);
  const auto h = store.histograms_json();
  ASSERT_EQ(h.size(), 1u);
  ASSERT_EQ(h[0]["buckets"].size(), 1u);  // +Inf only
  EXPECT_EQ(h[0]["buckets"][0][1], 4);
  EXPECT_EQ(h[0]["count"], 4);
}

}  // namespace
}  // namespace sb::telemetry
