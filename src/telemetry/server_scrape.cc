#include "telemetry/server_scrape.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "net/http_fetch.h"

namespace sb::telemetry {
namespace {

constexpr KnownMetric kKnown[] = {
    {"vllm:num_requests_waiting", "queue depth", ""},
    {"vllm:num_requests_running", "running batch", ""},
    {"vllm:kv_cache_usage_perc", "KV-cache use", "fraction"},
    {"vllm:gpu_cache_usage_perc", "KV-cache use (GPU)", "fraction"},
    {"vllm:prompt_tokens_total", "prompt tokens/s (server)", "/s"},
    {"vllm:generation_tokens_total", "generation tokens/s (server)", "/s"},
    {"tgi_queue_size", "queue depth", ""},
    {"tgi_batch_current_size", "running batch", ""},
    {"tgi_batch_current_max_tokens", "batch max tokens", "tokens"},
    {"tgi_request_count", "requests/s (server)", "/s"},
    {"DCGM_FI_DEV_GPU_UTIL", "GPU util", "%"},
    {"DCGM_FI_DEV_FB_USED", "FB used", "MiB"},
    {"DCGM_FI_DEV_FB_FREE", "FB free", "MiB"},
    {"DCGM_FI_DEV_POWER_USAGE", "GPU power", "W"},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "GPU memory-bandwidth util", "%"},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature", "C"},
    {"DCGM_FI_DEV_SM_CLOCK", "GPU SM clock", "MHz"},
};

double parse_le(std::string_view s) {
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  try {
    return std::stod(std::string(s));
  } catch (...) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

Labels without(const Labels& l, std::string_view name) {
  Labels out;
  for (const auto& kv : l)
    if (kv.first != name) out.push_back(kv);
  return out;
}

}  // namespace

const KnownMetric* known_metric(std::string_view name) {
  for (const KnownMetric& k : kKnown)
    if (name == k.name) return &k;
  return nullptr;
}

bool PageIngest::admit(const std::string& key) {
  if (kept_.count(key)) return true;
  if (kept_.size() >= max_series_) return false;
  kept_.insert(key);
  return true;
}

void PageIngest::ingest(const PromPage& page, int64_t t_ns, SeriesStore& store) {
  std::map<std::string, Hist> seen;         // histograms of this page
  std::unordered_set<std::string> dropped;  // this page's series beyond the cap
  // The lines of one histogram (its buckets, _sum and _count) come together and share the
  // family and the labels but `le`: such a line reuses the key, admission and entry of the
  // line before it instead of making them again.
  std::string prev_family;
  Labels prev_base;
  Hist* prev = nullptr;  // nullptr: the line before was no histogram's, or was dropped
  for (const PromSample& s : page.samples) {
    const auto [family, type] = page.family_of(s.name);
    if (type == PromType::histogram) {
      const bool bucket = s.name.size() == family.size() + 7 && s.name.ends_with("_bucket");
      Labels base = bucket ? without(s.labels, "le") : s.labels;
      if (!prev || family != prev_family || base != prev_base) {
        const std::string hkey = series_key(family, base);
        prev = nullptr;
        if (!admit(source_ + "/" + hkey)) {
          dropped.insert(hkey);
          continue;
        }
        prev = &seen[hkey];
        prev->meta = SeriesMeta{source_, family, base, "", "", "histogram"};
        prev_family = family;
        prev_base = std::move(base);
      }
      Hist& h = *prev;
      if (bucket) {
        const double le = parse_le(label(s.labels, "le"));
        if (!std::isnan(le)) h.last[le] = s.value;
      } else if (s.name == family + "_count") {
        h.last_count = s.value;
      } else if (s.name == family + "_sum") {
        h.last_sum = s.value;
      }
      continue;
    }
    prev = nullptr;
    const KnownMetric* known = known_metric(s.name);
    SeriesMeta m{
        source_, s.name, s.labels, known ? known->report_name : "", known ? known->unit : "",
        "gauge"};
    const std::string key = SeriesStore::key_of(m);
    if (!admit(key)) {
      dropped.insert(key);
      continue;
    }
    if (type == PromType::counter || (type == PromType::untyped && s.name.ends_with("_total")) ||
        (type == PromType::summary && (s.name.ends_with("_sum") || s.name.ends_with("_count")))) {
      m.kind = "rate";
      if (m.unit.empty()) m.unit = "/s";
      auto it = counters_.find(key);
      if (it != counters_.end() && t_ns > it->second.first && s.value >= it->second.second) {
        const double dt = static_cast<double>(t_ns - it->second.first) / 1e9;
        store.add(key, m, t_ns, (s.value - it->second.second) / dt);
      }
      counters_[key] = {t_ns, s.value};
      continue;
    }
    store.add(key, m, t_ns, s.value);  // gauge, untyped, summary quantile
  }
  dropped_series_ = std::max(dropped_series_, dropped.size());
  for (auto& [key, h] : seen) {
    auto [it, fresh] = hists_.try_emplace(key);
    Hist& run = it->second;
    if (fresh) {
      run.meta = h.meta;
      run.first = h.last;
      run.first_count = h.last_count;
      run.first_sum = h.last_sum;
    }
    run.last = h.last;
    run.last_count = h.last_count;
    run.last_sum = h.last_sum;
    HistogramDelta d;
    d.meta = run.meta;
    for (const auto& [le, n] : run.last) {
      const auto f = run.first.find(le);
      d.buckets.emplace_back(le, n - (f == run.first.end() ? 0 : f->second));
    }
    d.count = run.last_count - run.first_count;
    d.sum = run.last_sum - run.first_sum;
    store.set_histogram(source_ + "/" + key, std::move(d));
  }
}

ServerScrape::ServerScrape(std::string url, std::string source, ScrapeOptions options)
    : url_(std::move(url)), options_(options), ingest_(std::move(source), options.max_series) {}

bool ServerScrape::scrape(int64_t t_ns, SeriesStore& store) {
  net::HttpFetchOptions o;
  o.timeout = options_.timeout;
  o.max_body_bytes = options_.max_body_bytes;
  const net::HttpFetchResult r = net::http_fetch(url_, o);
  counts_.last_ms = r.elapsed_ms;
  auto fail = [&](std::string why) {
    ++counts_.failed;
    counts_.last_error = std::move(why);
    return false;
  };
  if (!r.ok) return fail(r.error);
  if (r.content_type.find("html") != std::string::npos)
    return fail(fmt::format("not Prometheus text (Content-Type {})", r.content_type));
  PromPage page = parse_prom_text(r.body);
  if (page.samples.empty())
    return fail(page.bad_lines > 0 ? fmt::format("not Prometheus text ({} bad lines; {})",
                                                 page.bad_lines, page.errors.front())
                                   : std::string("no samples on the page"));
  ingest_.ingest(page, t_ns, store);
  last_page_ = std::move(page);
  ++counts_.ok;
  return true;
}

std::string server_source(size_t index, size_t count) {
  return count == 1 ? "server" : fmt::format("server{}", index);
}

}  // namespace sb::telemetry
