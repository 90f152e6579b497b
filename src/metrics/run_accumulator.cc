#include "metrics/run_accumulator.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "metrics/server_histograms.h"

namespace sb::metrics {

namespace {

constexpr int64_t kLateSendNs = 1'000'000;  // dispatch_delay > 1 ms is a late send

std::string token_source_name(size_t i) {
  return std::string(to_string(static_cast<TokenSource>(i)));
}

ErrorCounts error_counts(
    const std::array<int64_t, static_cast<size_t>(ErrorClass::abandoned) + 1>& counts) {
  ErrorCounts e;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0) e[std::string(to_string(static_cast<ErrorClass>(i)))] = counts[i];
  return e;
}

Throughput throughput_of(int64_t ok, int64_t in, int64_t out, int64_t items, bool pooling,
                         double window_s) {
  Throughput t;
  t.window_s = window_s;
  if (window_s <= 0) return t;
  if (pooling) t.items_per_s = static_cast<double>(items) / window_s;
  t.requests_per_s = static_cast<double>(ok) / window_s;
  t.input_tokens_per_s = static_cast<double>(in) / window_s;
  t.output_tokens_per_s = static_cast<double>(out) / window_s;
  t.total_tokens_per_s = static_cast<double>(in + out) / window_s;
  return t;
}

}  // namespace

RunAccumulator::RunAccumulator(const RunInfo& info)
    : slo_(info.slo), priorities_(info.slo), timeseries_(info.bucket_interval_ms) {}

uint16_t RunAccumulator::class_of(const std::string& name) {
  if (!class_names_.empty() && class_names_[last_class_] == name) return last_class_;
  auto it = class_index_.find(name);
  if (it == class_index_.end()) {
    if (class_names_.size() == kMaxClasses)
      throw Error(
          fmt::format("more than {} request classes: '{}' is one too many", kMaxClasses, name));
    it = class_index_.emplace(name, static_cast<uint16_t>(class_names_.size())).first;
    class_names_.push_back(name);
    class_counts_.emplace_back();
    itl_.emplace_back();
  }
  return last_class_ = it->second;
}

void RunAccumulator::count(Counts& c, const RequestRecord& r) const {
  ++c.requests.total;
  if (r.quality) c.quality.add(*r.quality);
  if (!r.ok()) {
    ++c.requests.failed;
    ++c.errors[static_cast<size_t>(r.error_class)];
    return;
  }
  ++c.requests.ok;
  c.ok_input_tokens += r.input_tokens;
  c.ok_output_tokens += r.output_tokens;
  if (r.items >= 0) {
    c.pooling = true;
    c.ok_items += r.items;
  }
}

void RunAccumulator::add(const RequestRecord& r) {
  if (r.warmup) {
    ++warmup_;
    return;
  }
  const uint16_t cls = class_of(r.request_class);
  count(all_, r);
  count(class_counts_[cls], r);

  if (auto v = r.dispatch_delay_ms()) delay_.push(*v, cls);
  if (r.ok()) {
    if (auto v = r.ttft_ms()) ttft_.push(*v, cls);
    if (auto v = r.ttft_content_ms()) ttft_content_.push(*v, cls);
    if (auto v = r.tpot_ms()) tpot_.push(*v, cls);
    if (auto v = r.e2e_ms()) e2e_.push(*v, cls);
    if (auto v = r.scheduled_e2e_ms()) sched_e2e_.push(*v, cls);
    for (float gap : r.itl_ms) itl_[cls].push(gap);
    in_tok_.push(static_cast<double>(r.input_tokens), cls);
    out_tok_.push(static_cast<double>(r.output_tokens), cls);
    if (r.reasoning_tokens >= 0) reason_tok_.push(static_cast<double>(r.reasoning_tokens), cls);
    if (auto v = r.reasoning_ms()) reason_ms_.push(*v, cls);

    const auto source = static_cast<size_t>(r.output_tokens_source);
    ++source_counts_[source];
    if (r.output_tokens_alt >= 0 && r.output_tokens_source != TokenSource::none) {
      const auto diff = static_cast<double>(std::llabs(r.output_tokens - r.output_tokens_alt));
      ++discrepancies_;
      ++discrepancy_pairs_[source][static_cast<size_t>(r.output_tokens_alt_source)];
      abs_diff_sum_ += diff;
      rel_diff_sum_ += diff / static_cast<double>(std::max<int64_t>(r.output_tokens, 1));
    }
  }

  if (r.t_send_ns != kNoTime && (first_send_ns_ == kNoTime || r.t_send_ns < first_send_ns_))
    first_send_ns_ = r.t_send_ns;
  if (r.t_end_ns != kNoTime) last_end_ns_ = std::max(last_end_ns_, r.t_end_ns);
  if (r.t_send_ns != kNoTime) {
    ++sent_;
    if (load_first_ns_ == kNoTime || r.t_send_ns < load_first_ns_) load_first_ns_ = r.t_send_ns;
    load_last_ns_ = std::max(load_last_ns_, r.t_send_ns);
    if (r.t_sched_ns != kNoTime && r.t_send_ns - r.t_sched_ns > kLateSendNs) ++late_sends_;
  }
  if (!slo_.empty() && meets_slo(r, slo_)) ++good_;
  if (r.error_class == ErrorClass::abandoned) ++abandoned_;

  sessions_.add(r);
  priorities_.add(r);
  timeseries_.add(r);
  decomposition_.add(r);
}

MetricSet RunAccumulator::metrics_of(uint16_t group) const {
  MetricSet m;
  m.ttft_ms = distribution_of(ttft_.gather(group));
  m.ttft_content_ms = distribution_of(ttft_content_.gather(group));
  m.tpot_ms = distribution_of(tpot_.gather(group));
  const FloatSamples* itl = &itl_[group];
  m.itl_ms = distribution_of_samples({&itl, 1});
  m.e2e_ms = distribution_of(e2e_.gather(group));
  m.scheduled_e2e_ms = distribution_of(sched_e2e_.gather(group));
  m.dispatch_delay_ms = distribution_of(delay_.gather(group));
  m.input_tokens = distribution_of(in_tok_.gather(group));
  m.output_tokens = distribution_of(out_tok_.gather(group));
  m.reasoning_tokens = distribution_of(reason_tok_.gather(group));
  m.reasoning_ms = distribution_of(reason_ms_.gather(group));
  return m;
}

MetricSet RunAccumulator::take_metrics() {
  MetricSet m;
  m.ttft_ms = distribution_of(ttft_.take());
  m.ttft_content_ms = distribution_of(ttft_content_.take());
  m.tpot_ms = distribution_of(tpot_.take());
  std::vector<const FloatSamples*> itl;
  for (const FloatSamples& part : itl_) itl.push_back(&part);
  m.itl_ms = distribution_of_samples(itl);
  itl_.clear();
  m.e2e_ms = distribution_of(e2e_.take());
  m.scheduled_e2e_ms = distribution_of(sched_e2e_.take());
  m.dispatch_delay_ms = distribution_of(delay_.take());
  m.input_tokens = distribution_of(in_tok_.take());
  m.output_tokens = distribution_of(out_tok_.take());
  m.reasoning_tokens = distribution_of(reason_tok_.take());
  m.reasoning_ms = distribution_of(reason_ms_.take());
  return m;
}

RunSummary RunAccumulator::finish(const RunInfo& info) {
  RunSummary s;
  s.requests = all_.requests;
  s.requests.warmup = warmup_;
  if (s.requests.total > 0)
    s.success_rate = static_cast<double>(s.requests.ok) / static_cast<double>(s.requests.total);
  const double window_s =
      first_send_ns_ == kNoTime || last_end_ns_ == kNoTime || last_end_ns_ <= first_send_ns_
          ? 0
          : static_cast<double>(last_end_ns_ - first_send_ns_) / 1e9;

  // Per class when there are several, or one named class (a scenario such as `chat`); with
  // one class its metrics are the run's, computed once below.
  const bool per_class =
      class_names_.size() > 1 || (class_names_.size() == 1 && class_names_[0] != "default");
  if (per_class)
    for (size_t i = 0; i < class_names_.size(); ++i) {
      ClassSummary& c = s.classes[class_names_[i]];
      const Counts& n = class_counts_[i];
      c.requests = n.requests;
      if (class_names_.size() > 1) c.metrics = metrics_of(static_cast<uint16_t>(i));
      c.throughput = throughput_of(n.requests.ok, n.ok_input_tokens, n.ok_output_tokens, n.ok_items,
                                   n.pooling, window_s);
      c.errors = error_counts(n.errors);
      c.quality = n.quality.corpus();
    }
  s.metrics = take_metrics();
  if (per_class && class_names_.size() == 1) s.classes.begin()->second.metrics = s.metrics;

  s.throughput = throughput_of(all_.requests.ok, all_.ok_input_tokens, all_.ok_output_tokens,
                               all_.ok_items, all_.pooling, window_s);
  s.errors = error_counts(all_.errors);

  s.goodput.slo = info.slo;
  if (!info.slo.empty()) {
    s.goodput.good = good_;
    if (window_s > 0) s.goodput.requests_per_s = static_cast<double>(good_) / window_s;
    if (s.requests.total > 0)
      s.goodput.fraction = static_cast<double>(good_) / static_cast<double>(s.requests.total);
  }
  if (info.abandon_after_s) {
    Abandonment& a = s.abandonment.emplace();
    a.after_s = *info.abandon_after_s;
    a.abandoned = abandoned_;
    if (s.requests.total > 0)
      a.rate = static_cast<double>(abandoned_) / static_cast<double>(s.requests.total);
  }

  LoadResult& l = s.load;
  l.mode = info.load_mode;
  l.concurrency = info.concurrency;
  l.target_rate = info.target_rate;
  l.max_concurrency = info.max_concurrency;
  l.late_sends = late_sends_;
  if (sent_ >= 2 && load_last_ns_ > load_first_ns_)
    l.achieved_rate = static_cast<double>(sent_ - 1) /
                      (static_cast<double>(load_last_ns_ - load_first_ns_) / 1e9);
  if (info.trace) {
    TraceReplay& t = s.trace.emplace();
    t.info = *info.trace;
    t.schedule_lag_ms = s.metrics.dispatch_delay_ms;
    if (t.schedule_lag_ms.count > 0)
      t.late_share =
          static_cast<double>(s.load.late_sends) / static_cast<double>(t.schedule_lag_ms.count);
  }
  s.sessions = sessions_.finish();
  s.priority = priorities_.finish(window_s);

  TokenSourceStats& ts = s.token_sources;
  for (size_t i = 0; i < kTokenSources; ++i) {
    if (source_counts_[i] > 0) ts.counts[token_source_name(i)] = source_counts_[i];
    for (size_t j = 0; j < kTokenSources; ++j)
      if (discrepancy_pairs_[i][j] > 0)
        ts.discrepancy_pairs[token_source_name(i) + "_vs_" + token_source_name(j)] =
            discrepancy_pairs_[i][j];
  }
  ts.discrepancy_count = discrepancies_;
  if (discrepancies_ > 0) {
    ts.mean_abs_diff_tokens = abs_diff_sum_ / static_cast<double>(discrepancies_);
    ts.mean_abs_rel_diff = rel_diff_sum_ / static_cast<double>(discrepancies_);
  }
  s.quality = all_.quality.corpus();

  s.timeseries = timeseries_.finish();
  s.bucket_interval_ms = timeseries_.interval_ms();  // widened past kMaxTimeBuckets
  s.decomposition = decomposition_.finish(s.metrics.ttft_ms, s.metrics.e2e_ms);
  s.decomposition.histograms = server_histograms(info.telemetry);
  s.client_health = assess_client(s, info);
  return s;
}

}  // namespace sb::metrics
