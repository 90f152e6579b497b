#include "telemetry/series_store.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

namespace sb::telemetry {
namespace {

nlohmann::json labels_json(const Labels& labels) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : labels) j[k] = v;
  return j;
}

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

std::string SeriesStore::key_of(const SeriesMeta& m) {
  return m.source + "/" + series_key(m.name, m.labels);
}

SeriesStats compute_stats(std::vector<double> v) {
  SeriesStats s;
  std::erase_if(v, [](double x) { return !std::isfinite(x); });
  if (v.empty()) return s;
  s.count = static_cast<int64_t>(v.size());
  s.last = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  s.max = v.back();
  // Nearest-rank median.
  s.p50 = v[static_cast<size_t>(std::ceil(0.5 * static_cast<double>(v.size()))) - 1];
  return s;
}

void SeriesStore::add(const SeriesMeta& meta, int64_t t_ns, double value) {
  add(key_of(meta), meta, t_ns, value);
}

void SeriesStore::add(const std::string& key, const SeriesMeta& meta, int64_t t_ns, double value) {
  const Series* series = nullptr;
  {
    std::lock_guard lock(mu_);
    auto [it, fresh] = series_.try_emplace(key);
    if (fresh) {
      it->second.meta = meta;
      it->second.jsonl_prefix = jsonl_prefix(meta);
    }
    it->second.points.emplace_back(t_ns, value);
    series = &it->second;
  }
  // A map's node and its prefix stay where they are; the prefix is never written again.
  if (sink_) sink_(series->jsonl_prefix, t_ns, value);
}

std::string jsonl_prefix(const SeriesMeta& meta) {
  const auto dump = [](const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  return "{\"key\":" + dump(SeriesStore::key_of(meta)) +
         ",\"labels\":" + dump(labels_json(meta.labels)) + ",\"name\":" + dump(meta.name) +
         ",\"source\":" + dump(meta.source) + ",";
}

void append_point_jsonl(std::string& out, std::string_view series_prefix, int64_t t_ns,
                        double value) {
  // Numbers as JSON writes them: shortest round-trip, ".0" on an integral value; null when
  // not finite.
  const auto number = [&out](double v) {
    if (!std::isfinite(v)) {
      out += "null";
      return;
    }
    const size_t from = out.size();
    fmt::format_to(std::back_inserter(out), "{}", v);
    if (out.find_first_of(".eE", from) == std::string::npos) out += ".0";
  };
  out += series_prefix;
  out += "\"t_s\":";
  number(static_cast<double>(t_ns) / 1e9);
  out += ",\"value\":";
  number(value);
  out += "}\n";
}

void SeriesStore::set_histogram(const std::string& key, const SeriesMeta& meta,
                                std::span<const std::pair<double, double>> buckets, double count,
                                double sum) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = histograms_.try_emplace(key);
  HistogramDelta& h = it->second;
  if (fresh) h.meta = meta;
  h.buckets.assign(buckets.begin(), buckets.end());
  h.count = count;
  h.sum = sum;
}

void SeriesStore::halve_resolution(int64_t interval_ns,
                                   const std::function<bool(const SeriesMeta&)>& mean_of_interval) {
  std::lock_guard lock(mu_);
  const int64_t coarse = 2 * interval_ns;
  for (auto& [key, series] : series_) {
    auto& p = series.points;
    const bool rate = series.meta.kind == "rate";
    const bool mean = rate || (mean_of_interval && mean_of_interval(series.meta));
    size_t kept = 0;  // in place: kept <= i / 2 + 1, so p[i - 1] is not written over yet
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].first % coarse != 0) continue;
      const bool pair = i > 0 && p[i - 1].first == p[i].first - interval_ns;
      if (mean && pair)
        p[kept++] = {p[i].first, (p[i - 1].second + p[i].second) / 2};
      else if (!rate)
        p[kept++] = p[i];
    }
    p.resize(kept);
  }
}

size_t SeriesStore::series_count() const {
  std::lock_guard lock(mu_);
  return series_.size();
}

std::vector<std::pair<int64_t, double>> SeriesStore::points(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(key);
  return it == series_.end() ? std::vector<std::pair<int64_t, double>>{} : it->second.points;
}

std::vector<std::string> SeriesStore::keys() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [k, s] : series_) out.push_back(k);
  return out;
}

SeriesStats SeriesStore::stats(const std::string& key) const {
  std::vector<double> v;
  for (const auto& p : points(key)) v.push_back(p.second);
  return compute_stats(std::move(v));
}

nlohmann::json SeriesStore::series_json(size_t max_points) const {
  std::lock_guard lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, s] : series_) {
    std::vector<double> values;
    for (const auto& p : s.points) values.push_back(p.second);
    const SeriesStats st = compute_stats(values);
    nlohmann::json j = {{"key", key},
                        {"source", s.meta.source},
                        {"name", s.meta.name},
                        {"labels", labels_json(s.meta.labels)},
                        {"kind", s.meta.kind},
                        {"unit", s.meta.unit},
                        {"count", st.count},
                        {"mean", st.count ? finite_or_null(st.mean) : nlohmann::json(nullptr)},
                        {"p50", st.count ? finite_or_null(st.p50) : nlohmann::json(nullptr)},
                        {"max", st.count ? finite_or_null(st.max) : nlohmann::json(nullptr)}};
    if (!s.meta.report_name.empty()) {
      j["report_name"] = s.meta.report_name;
      nlohmann::json pts = nlohmann::json::array();
      const size_t n = s.points.size();
      const size_t step = n > max_points && max_points > 0 ? (n + max_points - 1) / max_points : 1;
      for (size_t i = 0; i < n; i += step)
        pts.push_back(
            {static_cast<double>(s.points[i].first) / 1e9, finite_or_null(s.points[i].second)});
      j["points"] = std::move(pts);
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json SeriesStore::histograms_json() const {
  std::lock_guard lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, h] : histograms_) {
    nlohmann::json b = nlohmann::json::array();
    for (const auto& [le, n] : h.buckets)
      b.push_back({std::isinf(le) ? nlohmann::json("+Inf") : nlohmann::json(le), n});
    out.push_back({{"key", key},
                   {"source", h.meta.source},
                   {"name", h.meta.name},
                   {"labels", labels_json(h.meta.labels)},
                   {"count", h.count},
                   {"sum", finite_or_null(h.sum)},
                   {"buckets", std::move(b)}});
  }
  return out;
}

bool SeriesStore::write_jsonl(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  if (!f) return false;
  std::lock_guard lock(mu_);
  std::vector<std::tuple<int64_t, const Series*, double>> all;
  for (const auto& [key, s] : series_)
    for (const auto& p : s.points) all.emplace_back(p.first, &s, p.second);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::string out;
  for (const auto& [t, s, v] : all) {
    append_point_jsonl(out, s->jsonl_prefix, t, v);
    if (out.size() >= (size_t{1} << 20)) {
      f << out;
      out.clear();
    }
  }
  f << out;
  return static_cast<bool>(f);
}

}  // namespace sb::telemetry
