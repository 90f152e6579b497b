#pragma once
// Telemetry series on the run's clock: every point is (ns since run start, value), as in
// RequestRecord. Thread-safe: each sampler thread adds its own series. At the end the store
// becomes summary.json's `telemetry.series` (mean, p50, max per series; points thinned to a
// cap) and telemetry.jsonl (every point, one line each).
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "telemetry/prom_text.h"

namespace sb::telemetry {

struct SeriesMeta {
  std::string source;       // "gpu", "host", "server", or a scrape target's name
  std::string name;         // raw metric name (e.g. vllm:num_requests_waiting, sm_util_pct)
  Labels labels;            // e.g. {device="0"}
  std::string report_name;  // "queue depth", "GPU 0 SM util" ...; empty for unknown names
  std::string unit;         // "%", "bytes", "W", "/s" ...
  std::string kind;         // "gauge" | "rate" (a counter turned into a rate)
};

// Bucket deltas of one histogram over the run (last scrape minus first).
struct HistogramDelta {
  SeriesMeta meta;
  std::vector<std::pair<double, double>> buckets;  // (le, cumulative count delta); +Inf last
  double count = 0, sum = 0;
};

struct SeriesStats {
  int64_t count = 0;
  double mean = 0, p50 = 0, max = 0, last = 0;
};

// Called with every point as it is added (telemetry.jsonl streamed as sampled), with its
// series' line prefix (jsonl_prefix, made once per series; valid as long as the store).
using PointSink = std::function<void(std::string_view series_prefix, int64_t t_ns, double value)>;

class SeriesStore {
 public:
  // Set before the first add() (the samplers' threads read it unlocked); empty: none.
  void set_point_sink(PointSink sink) { sink_ = std::move(sink); }
  void add(const SeriesMeta& meta, int64_t t_ns, double value);
  // The same, for a caller that has the series' key (key_of(meta)) already.
  void add(const std::string& key, const SeriesMeta& meta, int64_t t_ns, double value);
  // The histogram `key`'s deltas so far (replacing the last ones; meta is taken the first time).
  void set_histogram(const std::string& key, const SeriesMeta& meta,
                     std::span<const std::pair<double, double>> buckets, double count, double sum);
  // For points sampled every interval_ns from t = 0 (a virtual run's): keeps what sampling
  // every 2 x interval_ns would have given. A gauge keeps its points at multiples of 2 x
  // interval_ns; a rate's point there (the counter's increase over the interval before, per
  // second) becomes the mean of it and the point one interval earlier: the increase over two
  // intervals (without that point, after a counter reset, it is dropped). A gauge for which
  // `mean_of_interval` holds (a mean over the interval since the sample before: a modelled GPU
  // utilisation or power) is averaged the same way, and kept as it is without that point (the
  // first). The point sink, if any, has seen the points already: it is not told.
  void halve_resolution(int64_t interval_ns,
                        const std::function<bool(const SeriesMeta&)>& mean_of_interval = {});
  size_t series_count() const;
  // Points of the series whose key is `key` (source/name{labels}); empty when unknown.
  std::vector<std::pair<int64_t, double>> points(const std::string& key) const;
  std::vector<std::string> keys() const;
  // Stats of a series, or count 0.
  SeriesStats stats(const std::string& key) const;
  // [{key, source, name, labels, report_name, unit, kind, count, mean, p50, max,
  //   points: [[t_s, v], ...] (only for named series and at most max_points, evenly thinned)}]
  nlohmann::json series_json(size_t max_points = 600) const;
  nlohmann::json histograms_json() const;
  // One line per point (append_point_jsonl), in time order. Returns false when the file cannot be
  // written.
  bool write_jsonl(const std::string& path) const;

  static std::string key_of(const SeriesMeta& m);

 private:
  struct Series {
    SeriesMeta meta;
    std::string jsonl_prefix;  // jsonl_prefix(meta)
    std::vector<std::pair<int64_t, double>> points;
  };
  PointSink sink_;
  mutable std::mutex mu_;
  std::map<std::string, Series> series_;
  std::map<std::string, HistogramDelta> histograms_;
};

SeriesStats compute_stats(std::vector<double> values);

// telemetry.jsonl's line of one point, '\n' included: {"key":..,"labels":{..},"name":..,
// "source":..,"t_s":..,"value":..} (a non-finite value is null). Made of two parts: the
// series' prefix, the same for each of its points (`{"key":..,"labels":{..},"name":..,
// "source":..,`), and the point's own `"t_s":..,"value":..}\n` (append_point_jsonl).
std::string jsonl_prefix(const SeriesMeta& meta);
void append_point_jsonl(std::string& out, std::string_view series_prefix, int64_t t_ns,
                        double value);

}  // namespace sb::telemetry
