#include "metrics/run_summary.h"
#include "metrics/server_histograms.h"

#include "metrics/server_histograms.h"

#include <algorithm>
#include <cstdlib>

namespace sb::metrics {

namespace {

using Records = std::vector<const RequestRecord*>;

constexpr int64_t kLateSendNs = 1'000'000;  // dispatch_delay > 1 ms is a late send

RequestCounts count_requests(const Records& measured) {
  RequestCounts c;
  c.total = static_cast<int64_t>(measured.size());
  for (const RequestRecord* r : measured) ++(r->ok() ? c.ok : c.failed);
  return c;
}

ErrorCounts count_errors(const Records& measured) {
  ErrorCounts e;
  for (const RequestRecord* r : measured)
    if (!r->ok()) ++e[std::string(to_string(r->error_class))];
  return e;
}

MetricSet compute_metrics(const Records& measured) {
  std::vector<double> ttft, ttft_content, tpot, itl, e2e, sched_e2e, delay, in_tok, out_tok,
      reason_tok, reason_ms;
  for (const RequestRecord* r : measured) {
    if (auto v = r->dispatch_delay_ms()) delay.push_back(*v);
    if (!r->ok()) continue;
    if (auto v = r->ttft_ms()) ttft.push_back(*v);
    if (auto v = r->ttft_content_ms()) ttft_content.push_back(*v);
    if (auto v = r->tpot_ms()) tpot.push_back(*v);
    if (auto v = r->e2e_ms()) e2e.push_back(*v);
    if (auto v = r->scheduled_e2e_ms()) sched_e2e.push_back(*v);
    itl.insert(itl.end(), r->itl_ms.begin(), r->itl_ms.end());
    in_tok.push_back(static_cast<double>(r->input_tokens));
    out_tok.push_back(static_cast<double>(r->output_tokens));
    if (r->reasoning_tokens >= 0) reason_tok.push_back(static_cast<double>(r->reasoning_tokens));
    if (auto v = r->reasoning_ms()) reason_ms.push_back(*v);
  }
  MetricSet m;
  m.ttft_ms = distribution_of(std::move(ttft));
  m.ttft_content_ms = distribution_of(std::move(ttft_content));
  m.tpot_ms = distribution_of(std::move(tpot));
  m.itl_ms = distribution_of(std::move(itl));
  m.e2e_ms = distribution_of(std::move(e2e));
  m.scheduled_e2e_ms = distribution_of(std::move(sched_e2e));
  m.dispatch_delay_ms = distribution_of(std::move(delay));
  m.input_tokens = distribution_of(std::move(in_tok));
  m.output_tokens = distribution_of(std::move(out_tok));
  m.reasoning_tokens = distribution_of(std::move(reason_tok));
  m.reasoning_ms = distribution_of(std::move(reason_ms));
  return m;
}

// First t_send .. last t_end of the measured requests, in seconds; 0 if unknown or empty.
double measured_window_s(const Records& measured) {
  int64_t first = kNoTime, last = kNoTime;
  for (const RequestRecord* r : measured) {
    if (r->t_send_ns != kNoTime && (first == kNoTime || r->t_send_ns < first)) first = r->t_send_ns;
    if (r->t_end_ns != kNoTime) last = std::max(last, r->t_end_ns);
  }
  if (first == kNoTime || last == kNoTime || last <= first) return 0;
  return static_cast<double>(last - first) / 1e9;
}

Throughput compute_throughput(const Records& subset, double window_s) {
  Throughput t;
  t.window_s = window_s;
  if (window_s <= 0) return t;
  int64_t ok = 0, in = 0, out = 0, items = 0;
  bool pooling = false;
  for (const RequestRecord* r : subset) {
    if (!r->ok()) continue;
    ++ok;
    in += r->input_tokens;
    out += r->output_tokens;
    if (r->items >= 0) {
      pooling = true;
      items += r->items;
    }
  }
  if (pooling) t.items_per_s = static_cast<double>(items) / window_s;
  t.requests_per_s = static_cast<double>(ok) / window_s;
  t.input_tokens_per_s = static_cast<double>(in) / window_s;
  t.output_tokens_per_s = static_cast<double>(out) / window_s;
  t.total_tokens_per_s = static_cast<double>(in + out) / window_s;
  return t;
}

LoadResult compute_load(const Records& measured, const RunInfo& info) {
  LoadResult l;
  l.mode = info.load_mode;
  l.concurrency = info.concurrency;
  l.target_rate = info.target_rate;
  l.max_concurrency = info.max_concurrency;
  int64_t first = kNoTime, last = kNoTime, sent = 0;
  for (const RequestRecord* r : measured) {
    if (r->t_send_ns == kNoTime) continue;
    ++sent;
    if (first == kNoTime || r->t_send_ns < first) first = r->t_send_ns;
    last = std::max(last, r->t_send_ns);
    if (r->t_sched_ns != kNoTime && r->t_send_ns - r->t_sched_ns > kLateSendNs) ++l.late_sends;
  }
  if (sent >= 2 && last > first)
    l.achieved_rate = static_cast<double>(sent - 1) / (static_cast<double>(last - first) / 1e9);
  return l;
}

TokenSourceStats compute_token_sources(const Records& measured) {
  TokenSourceStats s;
  double abs_sum = 0, rel_sum = 0;
  for (const RequestRecord* r : measured) {
    if (!r->ok()) continue;
    ++s.counts[std::string(to_string(r->output_tokens_source))];
    if (r->output_tokens_alt < 0 || r->output_tokens_source == TokenSource::none) continue;
    const auto diff = static_cast<double>(std::llabs(r->output_tokens - r->output_tokens_alt));
    ++s.discrepancy_count;
    ++s.discrepancy_pairs[std::string(to_string(r->output_tokens_source)) + "_vs_" +
                          std::string(to_string(r->output_tokens_alt_source))];
    abs_sum += diff;
    rel_sum += diff / static_cast<double>(std::max<int64_t>(r->output_tokens, 1));
  }
  if (s.discrepancy_count > 0) {
    s.mean_abs_diff_tokens = abs_sum / static_cast<double>(s.discrepancy_count);
    s.mean_abs_rel_diff = rel_sum / static_cast<double>(s.discrepancy_count);
  }
  return s;
}

// Corpus quality over the measured requests that were scored (quality/request_quality.h).
std::optional<quality::CorpusQuality> compute_quality(const Records& measured) {
  quality::QualityTotals totals;
  for (const RequestRecord* r : measured)
    if (r->quality) totals.add(*r->quality);
  return totals.corpus();
}

}  // namespace

RunSummary summarize_run(const std::vector<RequestRecord>& records, const RunInfo& info) {
  RunSummary s;
  Records measured;
  measured.reserve(records.size());
  for (const RequestRecord& r : records) {
    if (r.warmup)
      ++s.requests.warmup;
    else
      measured.push_back(&r);
  }
  const int64_t warmup = s.requests.warmup;
  s.requests = count_requests(measured);
  s.requests.warmup = warmup;
  if (s.requests.total > 0)
    s.success_rate = static_cast<double>(s.requests.ok) / static_cast<double>(s.requests.total);
  s.metrics = compute_metrics(measured);
  const double window_s = measured_window_s(measured);
  s.throughput = compute_throughput(measured, window_s);
  s.errors = count_errors(measured);

  s.goodput.slo = info.slo;
  if (!info.slo.empty()) {
    for (const RequestRecord* r : measured) s.goodput.good += meets_slo(*r, info.slo) ? 1 : 0;
    if (window_s > 0) s.goodput.requests_per_s = static_cast<double>(s.goodput.good) / window_s;
    if (s.requests.total > 0)
      s.goodput.fraction =
          static_cast<double>(s.goodput.good) / static_cast<double>(s.requests.total);
  }

  if (info.abandon_after_s) {
    Abandonment& a = s.abandonment.emplace();
    a.after_s = *info.abandon_after_s;
    for (const RequestRecord* r : measured) a.abandoned += r->error_class == ErrorClass::abandoned;
    if (s.requests.total > 0)
      a.rate = static_cast<double>(a.abandoned) / static_cast<double>(s.requests.total);
  }

  s.load = compute_load(measured, info);
  if (info.trace) {
    TraceReplay& t = s.trace.emplace();
    t.info = *info.trace;
    t.schedule_lag_ms = s.metrics.dispatch_delay_ms;
    if (t.schedule_lag_ms.count > 0)
      t.late_share =
          static_cast<double>(s.load.late_sends) / static_cast<double>(t.schedule_lag_ms.count);
  }
  s.sessions = summarize_sessions(measured);
  s.priority = summarize_priorities(measured, window_s, info.slo);
  s.token_sources = compute_token_sources(measured);
  s.quality = compute_quality(measured);

  std::map<std::string, Records> by_class;
  for (const RequestRecord* r : measured) by_class[r->request_class].push_back(r);
  // Per class when there are several, or one named class (a scenario such as `chat`).
  if (by_class.size() > 1 || (by_class.size() == 1 && by_class.begin()->first != "default")) {
    for (const auto& [name, recs] : by_class) {
      ClassSummary& c = s.classes[name];
      c.requests = count_requests(recs);
      c.metrics = compute_metrics(recs);
      c.throughput = compute_throughput(recs, window_s);
      c.errors = count_errors(recs);
      c.quality = compute_quality(recs);
    }
  }

  s.bucket_interval_ms = info.bucket_interval_ms;
  s.timeseries = build_timeseries(measured, info.bucket_interval_ms);
  s.decomposition = decompose(records);
  s.decomposition.histograms = server_histograms(info.telemetry);
  s.client_health = assess_client(s, info);
  return s;
}

}  // namespace sb::metrics
