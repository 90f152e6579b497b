#include "results/summary_json.h"

#include <cmath>

#include "results/economics_json.h"
#include "results/summary_redact.h"

namespace sb::results {

namespace {

using nlohmann::json;
using namespace sb::metrics;

json number_or_null(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json requests_json(const RequestCounts& c) {
  return {{"total", c.total}, {"ok", c.ok}, {"failed", c.failed}, {"warmup", c.warmup}};
}

json metrics_json(const MetricSet& m) {
  json out = {{"ttft_ms", distribution_to_json(m.ttft_ms)},
              {"ttft_content_ms", distribution_to_json(m.ttft_content_ms)},
              {"tpot_ms", distribution_to_json(m.tpot_ms)},
              {"itl_ms", distribution_to_json(m.itl_ms)},
              {"e2e_ms", distribution_to_json(m.e2e_ms)},
              {"scheduled_e2e_ms", distribution_to_json(m.scheduled_e2e_ms)},
              {"dispatch_delay_ms", distribution_to_json(m.dispatch_delay_ms)},
              {"input_tokens", distribution_to_json(m.input_tokens)},
              {"output_tokens", distribution_to_json(m.output_tokens)}};
  // Only when some request reasoned (reasoning models).
  if (!m.reasoning_tokens.empty())
    out["reasoning_tokens"] = distribution_to_json(m.reasoning_tokens);
  if (!m.reasoning_ms.empty()) out["reasoning_ms"] = distribution_to_json(m.reasoning_ms);
  return out;
}

json throughput_json(const Throughput& t) {
  json out = {{"window_s", t.window_s},
              {"requests_per_s", number_or_null(t.requests_per_s)},
              {"input_tokens_per_s", number_or_null(t.input_tokens_per_s)},
              {"output_tokens_per_s", number_or_null(t.output_tokens_per_s)},
              {"total_tokens_per_s", number_or_null(t.total_tokens_per_s)}};
  if (t.items_per_s) out["items_per_s"] = *t.items_per_s;  // embeddings / rerank only
  return out;
}

json errors_json(const ErrorCounts& e) {
  json out = json::object();
  for (const auto& [name, n] : e) out[name] = n;
  return out;
}

json slo_json(const Slo& slo) {
  json out = json::object();
  if (slo.ttft_ms) out["ttft_ms"] = *slo.ttft_ms;
  if (slo.tpot_ms) out["tpot_ms"] = *slo.tpot_ms;
  if (slo.e2e_ms) out["e2e_ms"] = *slo.e2e_ms;
  return out;
}

json load_json(const LoadResult& l) {
  json out = {{"mode", l.mode}};
  if (l.mode == "open") {
    out["target_rate"] = l.target_rate > 0 ? json(l.target_rate) : json(nullptr);
    out["max_concurrency"] = l.max_concurrency > 0 ? json(l.max_concurrency) : json(nullptr);
  } else {
    out["concurrency"] = l.concurrency;
  }
  out["achieved_rate"] = number_or_null(l.achieved_rate);
  out["late_sends"] = l.late_sends;
  return out;
}

// The replayed trace and how late its sends were (metrics::TraceReplay).
json trace_json(const TraceReplay& t) {
  const TraceInfo& i = t.info;
  const Distribution& lag = t.schedule_lag_ms;
  const auto lag_at = [&](double v) { return lag.empty() ? json(nullptr) : json(v); };
  return {{"file", i.file},
          {"format", i.format},
          {"entries", i.entries},
          {"lines", i.lines},
          {"skipped_lines", i.skipped},
          {"out_of_order", i.out_of_order},
          {"outside_window", i.outside_window},
          {"window", {{"start_s", i.window_start_s}, {"end_s", number_or_null(i.window_end_s)}}},
          {"speedup", i.speedup},
          {"span_s", i.span_s},
          {"schedule_lag_ms",
           {{"count", lag.count},
            {"p50", lag_at(lag.p50)},
            {"p99", lag_at(lag.p99)},
            {"max", lag_at(lag.max)}}},
          {"late_share", number_or_null(t.late_share)}};
}

// The measured sessions, and per turn index how TTFT, input and cache hits grew
// (metrics::SessionStats).
json sessions_json(const SessionStats& s) {
  const auto at = [](const Distribution& d, double v) {
    return d.empty() ? json(nullptr) : json(v);
  };
  json turns = json::array();
  for (const TurnStats& t : s.by_turn)
    turns.push_back(
        {{"turn", t.turn},
         {"requests", t.requests},
         {"ok", t.ok},
         {"ttft_ms_p50", at(t.ttft_ms, t.ttft_ms.p50)},
         {"ttft_ms_p99", at(t.ttft_ms, t.ttft_ms.p99)},
         {"input_tokens_mean", at(t.input_tokens, t.input_tokens.mean)},
         {"input_tokens_sum", t.input_tokens_sum},
         {"history_tokens_sum", t.history_tokens_sum},
         {"cached_tokens_sum", t.cached_reported > 0 ? json(t.cached_tokens_sum) : json(nullptr)},
         {"cached_reported", t.cached_reported},
         {"ideal_hit_rate", number_or_null(t.ideal_hit_rate)},
         {"cached_hit_rate", number_or_null(t.cached_hit_rate)}});
  return {{"count", s.sessions},
          {"completed", s.completed},
          {"turns_ok", s.turns_ok},
          {"turns_failed", s.turns_failed},
          {"duration_s",
           {{"count", s.duration_s.count},
            {"p50", at(s.duration_s, s.duration_s.p50)},
            {"p99", at(s.duration_s, s.duration_s.p99)},
            {"max", at(s.duration_s, s.duration_s.max)}}},
          {"by_turn", std::move(turns)}};
}

json token_sources_json(const TokenSourceStats& s) {
  json counts = json::object();
  for (const auto& [name, n] : s.counts) counts[name] = n;
  json pairs = json::object();
  for (const auto& [name, n] : s.discrepancy_pairs) pairs[name] = n;
  return {{"counts", counts},
          {"discrepancy",
           {{"count", s.discrepancy_count},
            {"pairs", pairs},
            {"mean_abs_tokens", number_or_null(s.mean_abs_diff_tokens)},
            {"mean_abs_rel", number_or_null(s.mean_abs_rel_diff)}}}};
}

// {"bleu", "chrf", "rouge_l", "exact_match", "scored", "empty_references"} (request_quality.h).
json quality_json(const quality::CorpusQuality& q) {
  return {{"bleu", q.bleu},       {"chrf", q.chrf},
          {"rouge_l", q.rouge_l}, {"exact_match", q.exact_match},
          {"scored", q.scored},   {"empty_references", q.empty_references}};
}

json timeseries_json(const std::vector<TimeBucket>& buckets) {
  json out = json::array();
  for (const TimeBucket& b : buckets)
    out.push_back({{"t_s", b.t_start_s},
                   {"started", b.started},
                   {"completed", b.completed},
                   {"errors", b.errors},
                   {"in_flight", b.in_flight},
                   {"requests_per_s", b.requests_per_s},
                   {"output_tokens_per_s", b.output_tokens_per_s},
                   {"ttft_mean_ms", number_or_null(b.ttft_mean_ms)},
                   {"ttft_p99_ms", number_or_null(b.ttft_p99_ms)}});
  return out;
}

json histogram_mean_json(const std::optional<HistogramMean>& m) {
  if (!m) return nullptr;
  return {{"metric", m->metric}, {"requests", m->count}, {"mean_ms", m->mean_ms}};
}

// summary.json `decomposition`: docs/metrics.md, "Where the time goes".
json decomposition_json(const Decomposition& d) {
  json client = {{"reused_connections", d.reused},
                 {"pool_wait_ms", distribution_to_json(d.pool_wait_ms)},
                 {"connect_ms", distribution_to_json(d.connect_ms)},
                 {"tls_ms", distribution_to_json(d.tls_ms)},
                 {"write_ms", distribution_to_json(d.write_ms)},
                 {"ttfb_ms", distribution_to_json(d.ttfb_ms)},
                 {"headers_ms", distribution_to_json(d.headers_ms)},
                 {"read_lag_max_ms", distribution_to_json(d.read_lag_max_ms)}};
  json server = {{"source", d.server_source},
                 {"requests", d.server_reported},
                 {"queue_ms", distribution_to_json(d.server_queue_ms)},
                 {"prefill_ms", distribution_to_json(d.server_prefill_ms)},
                 {"decode_ms", distribution_to_json(d.server_decode_ms)},
                 {"inference_ms", distribution_to_json(d.server_inference_ms)},
                 {"total_ms", distribution_to_json(d.server_total_ms)},
                 {"cached_tokens", distribution_to_json(d.server_cached_tokens)},
                 {"client_network_ms", distribution_to_json(d.client_network_ms)}};
  json hist = nullptr;
  if (!d.histograms.source.empty())
    hist = {{"source", d.histograms.source},
            {"queue", histogram_mean_json(d.histograms.queue)},
            {"prefill", histogram_mean_json(d.histograms.prefill)},
            {"decode", histogram_mean_json(d.histograms.decode)},
            {"inference", histogram_mean_json(d.histograms.inference)}};
  return {{"requests", d.requests},
          {"ttft_ms", distribution_to_json(d.ttft_ms)},
          {"e2e_ms", distribution_to_json(d.e2e_ms)},
          {"client", std::move(client)},
          {"server", std::move(server)},
          {"server_histograms", std::move(hist)}};
}

json p50_p99(const Distribution& d) {
  return {{"count", d.count},
          {"p50", d.empty() ? json(nullptr) : json(d.p50)},
          {"p99", d.empty() ? json(nullptr) : json(d.p99)}};
}

json priority_json(const metrics::PrioritySummary& p) {
  json classes = json::array();
  for (const auto& c : p.classes)
    classes.push_back({{"name", c.name},
                       {"priority", c.priority},
                       {"requests", c.requests},
                       {"ok", c.ok},
                       {"ttft_ms", p50_p99(c.ttft_ms)},
                       {"e2e_ms", p50_p99(c.e2e_ms)},
                       {"goodput",
                        {{"good", c.good},
                         {"requests_per_s", number_or_null(c.goodput_requests_per_s)},
                         {"fraction", number_or_null(c.goodput_fraction)}}}});
  return {{"classes", std::move(classes)}, {"fairness", number_or_null(p.fairness)}};
}

}  // namespace

json distribution_to_json(const Distribution& d) {
  if (d.empty())
    return {{"count", 0},      {"mean", nullptr}, {"stddev", nullptr}, {"min", nullptr},
            {"p50", nullptr},  {"p90", nullptr},  {"p95", nullptr},    {"p99", nullptr},
            {"p999", nullptr}, {"max", nullptr}};
  return {{"count", d.count}, {"mean", d.mean}, {"stddev", d.stddev}, {"min", d.min},
          {"p50", d.p50},     {"p90", d.p90},   {"p95", d.p95},       {"p99", d.p99},
          {"p999", d.p999},   {"max", d.max}};
}

json summary_to_json(const RunSummary& s, const RunInfo& info) {
  json out;
  out["schema"] = kSummarySchema;
  out["tool"] = {{"name", info.tool_name}, {"version", info.tool_version}};
  out["config"] = info.config;
  out["host"] = info.host;
  out["run"] = {{"started_at", info.started_at},
                {"duration_s", info.duration_s},
                {"interrupted", info.interrupted},
                {"bucket_interval_ms", s.bucket_interval_ms},
                {"success_rate", number_or_null(s.success_rate)},
                {"requests", requests_json(s.requests)}};
  out["metrics"] = metrics_json(s.metrics);
  out["throughput"] = throughput_json(s.throughput);
  out["goodput"] = {{"slo", slo_json(s.goodput.slo)},
                    {"good", s.goodput.good},
                    {"requests_per_s", number_or_null(s.goodput.requests_per_s)},
                    {"fraction", number_or_null(s.goodput.fraction)}};
  out["load"] = load_json(s.load);
  out["errors"] = errors_json(s.errors);
  if (s.abandonment)
    out["abandonment"] = {{"after_s", s.abandonment->after_s},
                          {"abandoned", s.abandonment->abandoned},
                          {"rate", number_or_null(s.abandonment->rate)}};
  if (s.trace) out["trace"] = trace_json(*s.trace);
  if (s.sessions) out["sessions"] = sessions_json(*s.sessions);
  if (s.priority) out["priority_classes"] = priority_json(*s.priority);
  out["token_sources"] = token_sources_json(s.token_sources);
  if (s.quality) out["quality"] = quality_json(*s.quality);
  if (!s.classes.empty()) {
    json classes = json::object();
    for (const auto& [name, c] : s.classes)
      classes[name] = {{"requests", requests_json(c.requests)},
                       {"metrics", metrics_json(c.metrics)},
                       {"throughput", throughput_json(c.throughput)},
                       {"errors", errors_json(c.errors)}};
    for (const auto& [name, c] : s.classes)
      if (c.quality) classes[name]["quality"] = quality_json(*c.quality);
    out["classes"] = classes;
  }
  out["decomposition"] = decomposition_json(s.decomposition);
  out["client_health"] = client_health_json(s.client_health);
  out["timeseries"] = timeseries_json(s.timeseries);
  if (s.energy) out["energy"] = energy_to_json(*s.energy);
  if (s.cost) out["cost"] = cost_to_json(*s.cost);
  if (!info.telemetry.is_null()) out["telemetry"] = info.telemetry;
  return redact_summary(std::move(out));
}

}  // namespace sb::results
