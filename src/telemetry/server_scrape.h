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
class PageIngest {
 public:
  explicit PageIngest(std::string source, size_t max_series = kDefaultMaxSeries)
      : source_(std::move(source)), max_series_(max_series) {}
  // Series (a histogram counts as one) are kept in the order first seen, at most max_series;
  // the samples of any other series are dropped.
  void ingest(const PromPage& page, int64_t t_ns, SeriesStore& store);
  const std::string& source() const { return source_; }
  size_t max_series() const { return max_series_; }
  // The most series one page had beyond the cap (0: nothing was ever dropped).
  size_t dropped_series() const { return dropped_series_; }

 private:
  bool admit(const std::string& key);  // kept already, or room for one more
  struct Hist {
    SeriesMeta meta;
    std::map<double, double> first, last;  // le -> cumulative count
    double first_count = 0, first_sum = 0, last_count = 0, last_sum = 0;
  };
  std::string source_;
  size_t max_series_;
  std::unordered_set<std::string> kept_;  // keys of the series kept
  size_t dropped_series_ = 0;
  std::map<std::string, std::pair<int64_t, double>> counters_;  // key -> (t_ns, value)
  std::map<std::string, Hist> hists_;
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
