#include "report/time_split.h"

#include <algorithm>

#include <fmt/format.h>

namespace sb::report {
namespace {

// summary[decomposition][a][b].mean when its count is positive.
std::optional<double> mean_at(const nlohmann::json& d, const char* a, const char* b = nullptr) {
  const nlohmann::json* j = &d;
  for (const char* k : {a, b}) {
    if (!k) break;
    if (!j->is_object() || !j->contains(k)) return std::nullopt;
    j = &(*j)[k];
  }
  const auto c = number_at(*j, {"count"});
  if (!c || *c <= 0) return std::nullopt;
  return number_at(*j, {"mean"});
}

std::optional<double> hist_mean(const nlohmann::json& h, const char* part) {
  return number_at(h, {part, "mean_ms"});
}

std::string ms_text(double ms) {
  return ms >= 1000 ? fmt::format("{:.2f} s", ms / 1000) : fmt::format("{:.1f} ms", ms);
}

// "c=128" or "12 req/s": short, for a sentence or a bar's label.
std::string level_name(const std::string& load_kind, double load) {
  return load_kind == "rate" ? fmt::format("{:g} req/s", load) : fmt::format("c={:g}", load);
}

}  // namespace

TimeSplit time_split(const Level& level) {
  TimeSplit t;
  t.load = level.load;
  t.judged = level.judged;
  t.time_scale = level.time_scale;
  if (!level.run || !level.run->summary.contains("decomposition")) return t;
  const nlohmann::json& d = level.run->summary["decomposition"];
  t.n = static_cast<int64_t>(number_at(d, {"requests"}).value_or(0));
  t.ttft_ms = mean_at(d, "ttft_ms");
  t.e2e_ms = mean_at(d, "e2e_ms");
  const bool per_request = number_at(d, {"server", "requests"}).value_or(0) > 0 &&
                           d["server"].value("source", "none") != "openai_usage";
  if (per_request) {
    t.source = d["server"].value("source", "");
    t.queue_ms = mean_at(d, "server", "queue_ms");
    t.prefill_ms = mean_at(d, "server", "prefill_ms");
    t.decode_ms = mean_at(d, "server", "decode_ms");
    if (!t.prefill_ms || !t.decode_ms) t.inference_ms = mean_at(d, "server", "inference_ms");
    t.client_network_ms = mean_at(d, "server", "client_network_ms");
  } else if (d.contains("server_histograms") && d["server_histograms"].is_object()) {
    const nlohmann::json& h = d["server_histograms"];
    t.source = h.value("source", "");
    t.queue_ms = hist_mean(h, "queue");
    t.prefill_ms = hist_mean(h, "prefill");
    t.decode_ms = hist_mean(h, "decode");
    if (!t.prefill_ms || !t.decode_ms) t.inference_ms = hist_mean(h, "inference");
  }
  const std::optional<double> compute =
      t.prefill_ms && t.decode_ms ? std::optional(*t.prefill_ms + *t.decode_ms) : t.inference_ms;
  if (!t.client_network_ms && t.e2e_ms && t.queue_ms && compute)
    t.client_network_ms = std::max(0.0, *t.e2e_ms - *t.queue_ms - *compute);
  if (t.client_network_ms) t.client_network_ms = std::max(0.0, *t.client_network_ms);
  if (t.ttft_ms && t.queue_ms && t.prefill_ms)
    t.client_ttft_ms = std::max(0.0, *t.ttft_ms - *t.queue_ms - *t.prefill_ms);
  return t;
}

std::vector<TimeSplit> time_splits(const Group& group) {
  std::vector<TimeSplit> out;
  for (const Level& l : group.levels) out.push_back(time_split(l));
  return out;
}

std::string time_sentence(const Group& group, const std::vector<TimeSplit>& splits) {
  const TimeSplit* lo = nullptr;
  const TimeSplit* hi = nullptr;
  for (const TimeSplit& s : splits) {
    if (!s.judged || !s.queue_ms || !s.ttft_ms || !s.e2e_ms || *s.ttft_ms <= 0) continue;
    if (!lo) lo = &s;
    hi = &s;
  }
  if (!hi) return "";
  std::string out = fmt::format(
      "{} {}: at {} queueing is {:.0f}% of TTFT ({} of {} mean, n={})", group.backend,
      group.scenario, level_name(group.load_kind, hi->load), 100 * *hi->queue_ms / *hi->ttft_ms,
      ms_text(*hi->queue_ms), ms_text(*hi->ttft_ms), hi->n);
  const double queue_share = *hi->queue_ms / *hi->ttft_ms;
  if (queue_share >= 0.5)
    out += ": the server is saturated, requests wait for a batch slot";
  else if (hi->prefill_ms && *hi->prefill_ms / *hi->ttft_ms >= 0.5)
    out += ": prefill dominates (long prompts or a slow prefill)";
  else if (hi->client_ttft_ms && *hi->client_ttft_ms / *hi->ttft_ms >= 0.5)
    out += ": the client and the network dominate";
  if (hi->client_ttft_ms)
    out += fmt::format("; the client and the network added {}", ms_text(*hi->client_ttft_ms));
  if (lo != hi && *hi->e2e_ms > *lo->e2e_ms) {
    const double growth = *hi->e2e_ms - *lo->e2e_ms;
    out += fmt::format(". From {} to {} mean e2e grew by {}, {:.0f}% of it queueing",
                       level_name(group.load_kind, lo->load), level_name(group.load_kind, hi->load),
                       ms_text(growth), 100 * (*hi->queue_ms - *lo->queue_ms) / growth);
  }
  out += fmt::format(" (server times from {}", hi->source);
  if (hi->time_scale != 1)
    out += fmt::format("; wall times of a simulator at ×{:g}", hi->time_scale);
  out += ").";
  return out;
}

std::optional<svg::BarChart> time_chart(const Group& group, const std::vector<TimeSplit>& splits,
                                        const std::string& id) {
  svg::BarChart c;
  c.id = id;
  c.title = fmt::format("Where the time goes: {} {} (mean e2e, ms)", group.backend, group.scenario);
  c.series = {"queue", "prefill", "decode", "inference", "client + network"};
  c.values.assign(c.series.size(), {});
  c.y = svg::Axis{"mean e2e", "ms", {}, {}};
  c.stacked = true;
  bool any = false;
  for (const TimeSplit& s : splits) {
    if (!s.queue_ms && !s.prefill_ms && !s.inference_ms) continue;
    any = true;
    c.categories.push_back(level_name(group.load_kind, s.load) + (s.judged ? "" : " (few)"));
    c.values[0].push_back(s.queue_ms);
    c.values[1].push_back(s.prefill_ms);
    c.values[2].push_back(s.decode_ms);
    c.values[3].push_back(s.prefill_ms && s.decode_ms ? std::nullopt : s.inference_ms);
    c.values[4].push_back(s.client_network_ms);
  }
  if (!any) return std::nullopt;
  return c;
}

}  // namespace sb::report
