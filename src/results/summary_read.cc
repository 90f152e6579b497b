#include "results/summary_read.h"

#include <cmath>

#include "results/json_fields.h"

namespace sb::results {

namespace {

using nlohmann::json;

using json_fields::count;
using json_fields::flag;
using json_fields::member;
using json_fields::num;
using json_fields::text;

const json& object_at(const json& j, const char* key) {
  static const json kEmpty = json::object();
  const json* v = member(j, key);
  return v && v->is_object() ? *v : kEmpty;
}

std::map<std::string, int64_t> counts_of(const json& j) {
  std::map<std::string, int64_t> out;
  if (!j.is_object()) return out;
  for (const auto& [name, n] : j.items())
    if (n.is_number()) out[name] = n.get<int64_t>();
  return out;
}

DistributionView distribution_of(const json& j) {
  return {count(j, "count"), num(j, "mean"), num(j, "stddev"), num(j, "min"),  num(j, "p50"),
          num(j, "p90"),     num(j, "p95"),  num(j, "p99"),    num(j, "p999"), num(j, "max")};
}

MetricsView metrics_of(const json& j) {
  auto d = [&](const char* name) { return distribution_of(object_at(j, name)); };
  return {d("ttft_ms"),       d("ttft_content_ms"),  d("tpot_ms"),           d("itl_ms"),
          d("e2e_ms"),        d("scheduled_e2e_ms"), d("dispatch_delay_ms"), d("input_tokens"),
          d("output_tokens"), d("reasoning_tokens"), d("reasoning_ms")};
}

RequestsView requests_of(const json& j) {
  return {count(j, "total"), count(j, "ok"), count(j, "failed"), count(j, "warmup")};
}

ThroughputView throughput_of(const json& j) {
  return {num(j, "window_s"),           num(j, "requests_per_s"),
          num(j, "input_tokens_per_s"), num(j, "output_tokens_per_s"),
          num(j, "total_tokens_per_s"), num(j, "items_per_s")};
}

QualityView quality_of(const json& j) {
  return {num(j, "bleu"),        num(j, "chrf"),     num(j, "rouge_l"),
          num(j, "exact_match"), count(j, "scored"), count(j, "empty_references")};
}

std::optional<QualityView> optional_quality(const json& j) {
  const json* q = member(j, "quality");
  if (!q || !q->is_object()) return std::nullopt;
  return quality_of(*q);
}

GoodputView goodput_of(const json& j) {
  GoodputView g;
  const json& slo = object_at(j, "slo");
  g.slo.ttft_ms = num(slo, "ttft_ms");
  g.slo.tpot_ms = num(slo, "tpot_ms");
  g.slo.e2e_ms = num(slo, "e2e_ms");
  g.good = count(j, "good");
  g.requests_per_s = num(j, "requests_per_s");
  g.fraction = num(j, "fraction");
  return g;
}

LoadView load_of(const json& j) {
  return {text(j, "mode").value_or(""), num(j, "concurrency"),   num(j, "target_rate"),
          num(j, "max_concurrency"),    num(j, "achieved_rate"), count(j, "late_sends")};
}

TokenSourcesView token_sources_of(const json& j) {
  TokenSourcesView t;
  t.counts = counts_of(object_at(j, "counts"));
  const json& d = object_at(j, "discrepancy");
  t.discrepancy_count = count(d, "count");
  t.discrepancy_pairs = counts_of(object_at(d, "pairs"));
  t.mean_abs_tokens = num(d, "mean_abs_tokens");
  t.mean_abs_rel = num(d, "mean_abs_rel");
  return t;
}

RunFacts facts_of(const json& cfg) {
  RunFacts f;
  f.provider = text(cfg, "provider");
  f.scenario = text(cfg, "scenario");
  f.stage = text(cfg, "stage");
  f.sim_preset = text(cfg, "sim_preset");
  f.base_url = text(cfg, "base_url");
  const json& w = object_at(cfg, "workload");
  f.workload_scenario = text(w, "scenario");
  f.workload_input_tokens = num(w, "input_tokens");
  f.workload_output_tokens = num(w, "output_tokens");
  f.workload_input_dist = text(w, "input_dist");
  f.workload_output_dist = text(w, "output_dist");
  f.workload_shared_prefix = text(w, "shared_prefix");
  f.sim_time_scale = num(cfg, "sim_time_scale");
  if (const json* s = member(cfg, "sim_seed");
      s && (s->is_number_unsigned() || (s->is_number_integer() && s->get<int64_t>() >= 0)))
    f.sim_seed = s->get<uint64_t>();
  f.sim_replicas = count(cfg, "sim_replicas");
  f.max_error_rate = num(cfg, "max_error_rate");
  f.hardware = text(cfg, "hardware");
  f.precision = text(cfg, "precision");
  f.gpus = count(cfg, "gpus");
  return f;
}

RankView rank_of(const json& j) {
  RankView r;
  r.rank = count(j, "rank");
  r.host = text(j, "host");
  r.name = text(j, "name");
  r.state = text(j, "state");
  r.error = text(j, "error");
  r.interrupted = flag(j, "interrupted");
  r.clock_offset_ms = num(j, "clock_offset_ms");
  r.clock_uncertainty_ms = num(j, "clock_uncertainty_ms");
  r.records = count(j, "records");
  r.requests = requests_of(object_at(j, "requests"));
  r.throughput = throughput_of(object_at(j, "throughput"));
  r.metrics = metrics_of(object_at(j, "metrics"));
  const json& load = object_at(j, "load");
  r.achieved_rate = num(load, "achieved_rate");
  r.late_sends = count(load, "late_sends");
  return r;
}

DistributedView distributed_of(const json& j) {
  DistributedView d;
  d.ranks_total = count(j, "ranks_total");
  d.ranks_done = count(j, "ranks_done");
  d.clock = text(j, "clock");
  if (const json* ranks = member(j, "ranks"); ranks && ranks->is_array())
    for (const json& r : *ranks) d.ranks.push_back(rank_of(r));
  return d;
}

}  // namespace

std::optional<double> DistributionView::stat(std::string_view name) const {
  if (name == "mean") return mean;
  if (name == "stddev") return stddev;
  if (name == "min") return min;
  if (name == "p50") return p50;
  if (name == "p90") return p90;
  if (name == "p95") return p95;
  if (name == "p99") return p99;
  if (name == "p999") return p999;
  if (name == "max") return max;
  return std::nullopt;
}

const DistributionView* MetricsView::find(std::string_view name) const {
  if (name == "ttft_ms") return &ttft_ms;
  if (name == "ttft_content_ms") return &ttft_content_ms;
  if (name == "tpot_ms") return &tpot_ms;
  if (name == "itl_ms") return &itl_ms;
  if (name == "e2e_ms") return &e2e_ms;
  if (name == "scheduled_e2e_ms") return &scheduled_e2e_ms;
  if (name == "dispatch_delay_ms") return &dispatch_delay_ms;
  if (name == "input_tokens") return &input_tokens;
  if (name == "output_tokens") return &output_tokens;
  if (name == "reasoning_tokens") return &reasoning_tokens;
  if (name == "reasoning_ms") return &reasoning_ms;
  return nullptr;
}

std::optional<double> TimeBucketView::field(std::string_view name) const {
  auto d = [](const std::optional<int64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  if (name == "t_s") return t_s;
  if (name == "started") return d(started);
  if (name == "completed") return d(completed);
  if (name == "errors") return d(errors);
  if (name == "in_flight") return d(in_flight);
  if (name == "requests_per_s") return requests_per_s;
  if (name == "output_tokens_per_s") return output_tokens_per_s;
  if (name == "ttft_mean_ms") return ttft_mean_ms;
  if (name == "ttft_p99_ms") return ttft_p99_ms;
  return std::nullopt;
}

double RunFacts::time_scale() const {
  return sim_time_scale && *sim_time_scale > 0 ? *sim_time_scale : 1;
}

SummaryView summary_from_json(const json& s) {
  SummaryView v;
  if (!s.is_object()) return v;
  v.schema = text(s, "schema");
  const json& tool = object_at(s, "tool");
  v.tool_name = text(tool, "name");
  v.tool_version = text(tool, "version");
  v.config = object_at(s, "config");
  v.host = object_at(s, "host");
  v.facts = facts_of(v.config);
  const json& run = object_at(s, "run");
  v.started_at = text(run, "started_at");
  v.duration_s = num(run, "duration_s");
  v.interrupted = flag(run, "interrupted");
  v.bucket_interval_ms = num(run, "bucket_interval_ms");
  v.success_rate = num(run, "success_rate");
  v.requests = requests_of(object_at(run, "requests"));
  v.incomplete = flag(run, "incomplete");
  if (const json* m = member(run, "missing_ranks"); m && m->is_array())
    for (const json& name : *m)
      if (name.is_string()) v.missing_ranks.push_back(name.get<std::string>());
  v.metrics = metrics_of(object_at(s, "metrics"));
  v.throughput = throughput_of(object_at(s, "throughput"));
  v.goodput = goodput_of(object_at(s, "goodput"));
  v.load = load_of(object_at(s, "load"));
  v.errors = counts_of(object_at(s, "errors"));
  v.token_sources = token_sources_of(object_at(s, "token_sources"));
  v.quality = optional_quality(s);
  for (const auto& [name, c] : object_at(s, "classes").items())
    v.classes[name] = {requests_of(object_at(c, "requests")), metrics_of(object_at(c, "metrics")),
                       throughput_of(object_at(c, "throughput")), counts_of(object_at(c, "errors")),
                       optional_quality(c)};
  if (const json* ts = member(s, "timeseries"); ts && ts->is_array())
    for (const json& b : *ts)
      v.timeseries.push_back({num(b, "t_s"), count(b, "started"), count(b, "completed"),
                              count(b, "errors"), count(b, "in_flight"), num(b, "requests_per_s"),
                              num(b, "output_tokens_per_s"), num(b, "ttft_mean_ms"),
                              num(b, "ttft_p99_ms")});
  if (const json* t = member(s, "telemetry")) v.telemetry = *t;
  if (const json* d = member(s, "distributed"); d && d->is_object())
    v.distributed = distributed_of(*d);
  v.energy = energy_view_of(s);
  v.cost = cost_view_of(s);
  return v;
}

std::optional<double> error_rate(const SummaryView& s) {
  const auto& r = s.requests;
  if (!r.total || *r.total <= 0) return std::nullopt;
  return static_cast<double>(r.failed.value_or(0)) / static_cast<double>(*r.total);
}

}  // namespace sb::results
