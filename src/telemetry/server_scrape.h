#pragma once
// Scraping one Prometheus /metrics URL on the sampler's thread, turning successive pages
// into series: gauges (and untyped values) are sampled, counters become rates (per second
// between two scrapes; a reset starts over), histograms are kept as bucket deltas over the
// run, summary quantiles are sampled. Known vLLM / TGI / DCGM names (docs/architecture.md) get
// report names; every other series is kept under its own name, up to max_series per source
// (a bounded memory: series first seen once the cap is reached are dropped and counted). A
// failed scrape (down, slow, not Prometheus text, over the body limit) is counted with its
// reason, never thrown.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "telemetry/prom_text.h"
#include "telemetry/series_store.h"

namespace sb::telemetry {

struct KnownMetric {
  const char* name;
  const char* report_name;  // "queue depth", "running batch", "KV-cache use", "GPU util" ...
  const char* unit;
};
// The entry for a recognised metric name, or nullptr.
const KnownMetric* known_metric(std::string_view name);

struct ScrapeCounts {
  int64_t ok = 0, failed = 0;
  std::string last_error;
  double last_ms = 0;  // duration of the last scrape
};

inline constexpr size_t kDefaultMaxSeries = 2000;

// Folds pages into series. Pure (no I/O): tested with literal pages.
//
// A server's pages have the same samples in the same order scrape after scrape: what each
// sample is (which series, a rate or a gauge, which histogram bucket) is worked out once per
// layout and reused while the next page has the same names, labels and types, so a page of a
// known layout is folded without making a string (a virtual run folds thousands of them).
class PageIngest {
 public:
  explicit PageIngest(std::string source, size_t max_series = kDefaultMaxSeries)
      : source_(std::move(source)), max_series_(max_series) {}
  PageIngest(const PageIngest&) = delete;  // the layout points into this object's maps
  PageIngest& operator=(const PageIngest&) = delete;
  PageIngest(PageIngest&&) = default;  // map nodes (the layout's targets) move with their maps
  // Series (a histogram counts as one) are kept in the order first seen, at most max_series;
  // the samples of any other series are dropped.
  void ingest(const PromPage& page, int64_t t_ns, SeriesStore& store);
  const std::string& source() const { return source_; }
  size_t max_series() const { return max_series_; }
  // The most series one page had beyond the cap (0: nothing was ever dropped).
  size_t dropped_series() const { return dropped_series_; }

 private:
  bool admit(const std::string& key);  // kept already, or room for one more
  struct Counter {
    bool seen = false;
    int64_t t_ns = 0;
    double value = 0;
  };
  struct Hist {
    SeriesMeta meta;
    std::string store_key;                 // source/name{labels}
    std::map<double, double> first, last;  // le -> cumulative count
    double first_count = 0, first_sum = 0, last_count = 0, last_sum = 0;
    bool started = false;  // `first` holds the first page's values
  };
  // What one sample of the layout is. Pointers are into map nodes of this object (stable).
  struct Slot {
    enum class Kind { skip, gauge, rate, bucket, sum, count } kind = Kind::skip;
    std::string key;  // gauge, rate: the store's key
    SeriesMeta meta;  // gauge, rate
    Counter* counter = nullptr;
    Hist* hist = nullptr;    // bucket, sum, count
    double* cell = nullptr;  // bucket: its entry in hist->last
  };
  bool same_layout(const PromPage& page) const;
  void resolve(const PromPage& page);  // the layout of `page`, admitting its series
  std::string source_;
  size_t max_series_;
  std::unordered_set<std::string> kept_;  // keys of the series kept
  size_t dropped_series_ = 0;
  std::map<std::string, Counter> counters_;  // by store key
  std::map<std::string, Hist> hists_;        // by name{labels}
  // The layout: the samples' names and labels, the page's types, what each sample is, the
  // histograms on it, and how many series it had beyond the cap.
  std::vector<std::pair<std::string, Labels>> layout_ids_;
  uint64_t layout_id_ = 0;  // the resolved page's PromPage::layout_id
  std::map<std::string, PromType, std::less<>> layout_types_;
  std::vector<Slot> slots_;
  std::vector<Hist*> layout_hists_;
  size_t layout_dropped_ = 0;
  std::vector<std::pair<double, double>> deltas_;  // scratch: one histogram's bucket deltas
};

// The source name of server /metrics URL `index` of `count`: "server" when there is one, else
// "server0", "server1", ... (series keys and summary.json sources use it).
std::string server_source(size_t index, size_t count);

struct ScrapeOptions {
  Nanos timeout = std::chrono::seconds(2);
  size_t max_body_bytes = size_t{8} << 20;
  size_t max_series = kDefaultMaxSeries;  // per /metrics URL
};

class ServerScrape {
 public:
  ServerScrape(std::string url, std::string source, ScrapeOptions options = {});
  // Fetches and ingests one page; false (counted) on failure.
  bool scrape(int64_t t_ns, SeriesStore& store);
  const std::string& url() const { return url_; }
  const ScrapeCounts& counts() const { return counts_; }
  const PageIngest& ingest() const { return ingest_; }
  // The last good page (for DCGM mapping); empty before the first success.
  const PromPage& last_page() const { return last_page_; }

 private:
  std::string url_;
  ScrapeOptions options_;
  PageIngest ingest_;
  ScrapeCounts counts_;
  PromPage last_page_;
};

}  // namespace sb::telemetry
