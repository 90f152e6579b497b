#include "metrics/timeseries.h"

#include <algorithm>
#include <cmath>

#include "metrics/distribution.h"

namespace sb::metrics {

namespace {

int64_t start_ns(const RequestRecord& r) {
  if (r.t_send_ns != kNoTime) return r.t_send_ns;
  if (r.t_sched_ns != kNoTime) return r.t_sched_ns;
  return r.t_end_ns;
}

// Bucket of an instant in buckets of `width_ns`; negative instants (none expected) go to 0.
size_t bucket_in(int64_t t, double width_ns) {
  return t <= 0 ? 0 : static_cast<size_t>(std::floor(static_cast<double>(t) / width_ns));
}

}  // namespace

size_t TimeseriesAccumulator::bucket_of(int64_t t) const {
  return bucket_in(t, interval_ms_ * static_cast<double>(width_) * 1e6);
}

void TimeseriesAccumulator::merge(int64_t groups_of) {
  const auto g = static_cast<size_t>(groups_of);
  std::vector<Bucket> merged((buckets_.size() + g - 1) / g);
  for (size_t i = 0; i < buckets_.size(); ++i) {
    Bucket& to = merged[i / g];
    Bucket& from = buckets_[i];
    to.started += from.started;
    to.completed += from.completed;
    to.errors += from.errors;
    to.ok_completed += from.ok_completed;
    to.tokens += from.tokens;
    to.ttft.insert(to.ttft.end(), from.ttft.begin(), from.ttft.end());
  }
  buckets_ = std::move(merged);
  width_ *= groups_of;
}

TimeseriesAccumulator::Bucket& TimeseriesAccumulator::bucket_at(int64_t t) {
  size_t b = bucket_of(t);
  if (b >= kMaxBaseBuckets) {
    merge(static_cast<int64_t>(b / (kMaxBaseBuckets / 2)) + 1);
    b = bucket_of(t);
  }
  if (b >= buckets_.size()) buckets_.resize(b + 1);
  return buckets_[b];
}

void TimeseriesAccumulator::add(const RequestRecord& r) {
  if (!(interval_ms_ > 0)) return;
  any_ = true;
  for (int64_t t : {start_ns(r), r.t_first_ns, r.t_end_ns}) latest_ = std::max(latest_, t);
  if (const int64_t s = start_ns(r); s != kNoTime) ++bucket_at(s).started;
  if (r.t_end_ns != kNoTime) {
    Bucket& b = bucket_at(r.t_end_ns);
    ++b.completed;
    if (r.ok()) {
      ++b.ok_completed;
      b.tokens += r.output_tokens;
    } else {
      ++b.errors;
    }
  }
  if (r.ok() && r.t_first_ns != kNoTime)
    if (auto ttft = r.ttft_ms()) bucket_at(r.t_first_ns).ttft.push_back(*ttft);
}

std::vector<TimeBucket> TimeseriesAccumulator::finish() {
  if (!(interval_ms_ > 0) || !any_ || latest_ == kNoTime) return {};
  // Widen to the smallest whole multiple of the width in use that keeps the series bounded.
  const double spans = static_cast<double>(std::max<int64_t>(latest_, 0)) / (interval_ms_ * 1e6);
  if (spans >= static_cast<double>(kMaxTimeBuckets)) {
    const auto wanted = static_cast<int64_t>(std::floor(spans / (kMaxTimeBuckets - 1))) + 1;
    const int64_t groups = (wanted + width_ - 1) / width_;
    if (groups > 1) merge(groups);
  }
  const size_t n = bucket_of(latest_) + 1;
  if (buckets_.size() < n) buckets_.resize(n);
  std::vector<TimeBucket> out(n);
  const double interval_s = interval_ms_ * static_cast<double>(width_) / 1e3;
  int64_t in_flight = 0;
  for (size_t i = 0; i < n; ++i) {
    TimeBucket& tb = out[i];
    Bucket& b = buckets_[i];
    tb.t_start_s = static_cast<double>(i) * interval_s;
    tb.started = b.started;
    tb.completed = b.completed;
    tb.errors = b.errors;
    in_flight += b.started - b.completed;
    tb.in_flight = in_flight;
    tb.requests_per_s = static_cast<double>(b.ok_completed) / interval_s;
    tb.output_tokens_per_s = static_cast<double>(b.tokens) / interval_s;
    if (!b.ttft.empty()) {
      const Distribution d = distribution_of(std::move(b.ttft));
      tb.ttft_mean_ms = d.mean;
      tb.ttft_p99_ms = d.p99;
    }
  }
  buckets_.clear();
  return out;
}

std::vector<TimeBucket> build_timeseries(const std::vector<const RequestRecord*>& records,
                                         double interval_ms) {
  TimeseriesAccumulator a(interval_ms);
  for (const RequestRecord* r : records) a.add(*r);
  return a.finish();
}

}  // namespace sb::metrics
