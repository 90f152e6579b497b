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

bool PageIngest::same_layout(const PromPage& page) const {
  if (page.samples.size() != slots_.size() || slots_.empty()) return false;
  if (page.layout_id != 0 && page.layout_id == layout_id_) return true;  // PromPage's promise
  for (size_t i = 0; i < page.samples.size(); ++i) {
    const PromSample& s = page.samples[i];
    if (s.name != layout_ids_[i].first || s.labels != layout_ids_[i].second) return false;
  }
  return page.types == layout_types_;
}

void PageIngest::resolve(const PromPage& page) {
  layout_id_ = page.layout_id;
  slots_.assign(page.samples.size(), Slot{});
  layout_ids_.clear();
  layout_hists_.clear();
  layout_types_ = page.types;
  std::unordered_set<std::string> dropped;  // this page's series beyond the cap
  for (size_t i = 0; i < page.samples.size(); ++i) {
    const PromSample& s = page.samples[i];
    layout_ids_.emplace_back(s.name, s.labels);
    Slot& slot = slots_[i];
    const auto [family, type] = page.family_of(s.name);
    if (type == PromType::histogram) {
      const bool bucket = s.name.size() == family.size() + 7 && s.name.ends_with("_bucket");
      Labels base = bucket ? without(s.labels, "le") : s.labels;
      const std::string hkey = series_key(family, base);
      if (!admit(source_ + "/" + hkey)) {
        dropped.insert(hkey);
        continue;
      }
      Hist& h = hists_[hkey];
      if (std::find(layout_hists_.begin(), layout_hists_.end(), &h) == layout_hists_.end()) {
        layout_hists_.push_back(&h);
        h.last.clear();  // the buckets this layout has, set on every page
        if (h.store_key.empty()) {
          h.meta = SeriesMeta{source_, family, std::move(base), "", "", "histogram"};
          h.store_key = source_ + "/" + hkey;
        }
      }
      slot.hist = &h;
      if (bucket) {
        const double le = parse_le(label(s.labels, "le"));
        if (std::isnan(le)) continue;
        slot.kind = Slot::Kind::bucket;
        slot.cell = &h.last[le];
      } else if (s.name == family + "_count") {
        slot.kind = Slot::Kind::count;
      } else if (s.name == family + "_sum") {
        slot.kind = Slot::Kind::sum;
      }
      continue;
    }
    const KnownMetric* known = known_metric(s.name);
    slot.meta = SeriesMeta{
        source_, s.name, s.labels, known ? known->report_name : "", known ? known->unit : "",
        "gauge"};
    slot.key = SeriesStore::key_of(slot.meta);
    if (!admit(slot.key)) {
      dropped.insert(slot.key);
      continue;
    }
    slot.kind = Slot::Kind::gauge;  // gauge, untyped, summary quantile
    if (type == PromType::counter || (type == PromType::untyped && s.name.ends_with("_total")) ||
        (type == PromType::summary && (s.name.ends_with("_sum") || s.name.ends_with("_count")))) {
      slot.kind = Slot::Kind::rate;
      slot.meta.kind = "rate";
      if (slot.meta.unit.empty()) slot.meta.unit = "/s";
      slot.counter = &counters_[slot.key];
    }
  }
  layout_dropped_ = dropped.size();
}

void PageIngest::ingest(const PromPage& page, int64_t t_ns, SeriesStore& store) {
  if (!same_layout(page)) resolve(page);
  dropped_series_ = std::max(dropped_series_, layout_dropped_);
  for (Hist* h : layout_hists_) h->last_count = h->last_sum = 0;  // as absent from the page
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& slot = slots_[i];
    const double v = page.samples[i].value;
    switch (slot.kind) {
      case Slot::Kind::skip:
        break;
      case Slot::Kind::gauge:
        store.add(slot.key, slot.meta, t_ns, v);
        break;
      case Slot::Kind::rate: {
        Counter& c = *slot.counter;
        if (c.seen && t_ns > c.t_ns && v >= c.value)
          store.add(slot.key, slot.meta, t_ns,
                    (v - c.value) / (static_cast<double>(t_ns - c.t_ns) / 1e9));
        c = {true, t_ns, v};
        break;
      }
      case Slot::Kind::bucket:
        *slot.cell = v;
        break;
      case Slot::Kind::sum:
        slot.hist->last_sum = v;
        break;
      case Slot::Kind::count:
        slot.hist->last_count = v;
        break;
    }
  }
  for (Hist* h : layout_hists_) {
    if (!h->started) {
      h->first = h->last;
      h->first_count = h->last_count;
      h->first_sum = h->last_sum;
      h->started = true;
    }
    deltas_.clear();
    for (const auto& [le, n] : h->last) {
      const auto f = h->first.find(le);
      deltas_.emplace_back(le, n - (f == h->first.end() ? 0 : f->second));
    }
    store.set_histogram(h->store_key, h->meta, deltas_, h->last_count - h->first_count,
                        h->last_sum - h->first_sum);
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
