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

}  // namespace

std::vector<TimeBucket> build_timeseries(const std::vector<const RequestRecord*>& records,
                                         double interval_ms) {
  if (!(interval_ms > 0) || records.empty()) return {};
  int64_t latest = kNoTime;
  for (const RequestRecord* r : records)
    for (int64_t t : {start_ns(*r), r->t_first_ns, r->t_end_ns}) latest = std::max(latest, t);
  if (latest == kNoTime) return {};
  // Widen to the smallest whole multiple of the interval that keeps the series bounded.
  const double spans = static_cast<double>(std::max<int64_t>(latest, 0)) / (interval_ms * 1e6);
  if (spans >= static_cast<double>(kMaxTimeBuckets))
    interval_ms *= std::floor(spans / static_cast<double>(kMaxTimeBuckets - 1)) + 1;
  const double interval_ns = interval_ms * 1e6;
  // Bucket of an instant; negative instants (none expected) go to bucket 0.
  auto bucket_of = [&](int64_t t) -> size_t {
    return t <= 0 ? 0 : static_cast<size_t>(std::floor(static_cast<double>(t) / interval_ns));
  };

  const size_t n = bucket_of(latest) + 1;
  std::vector<TimeBucket> out(n);
  std::vector<int64_t> ok_completed(n, 0), tokens(n, 0);
  std::vector<std::vector<double>> ttfts(n);
  for (const RequestRecord* r : records) {
    if (const int64_t s = start_ns(*r); s != kNoTime) ++out[bucket_of(s)].started;
    if (r->t_end_ns != kNoTime) {
      const size_t b = bucket_of(r->t_end_ns);
      ++out[b].completed;
      if (r->ok()) {
        ++ok_completed[b];
        tokens[b] += r->output_tokens;
      } else {
        ++out[b].errors;
      }
    }
    if (r->ok() && r->t_first_ns != kNoTime)
      if (auto ttft = r->ttft_ms()) ttfts[bucket_of(r->t_first_ns)].push_back(*ttft);
  }

  const double interval_s = interval_ms / 1e3;
  int64_t in_flight = 0;
  for (size_t b = 0; b < n; ++b) {
    TimeBucket& tb = out[b];
    tb.t_start_s = static_cast<double>(b) * interval_s;
    in_flight += tb.started - tb.completed;
    tb.in_flight = in_flight;
    tb.requests_per_s = static_cast<double>(ok_completed[b]) / interval_s;
    tb.output_tokens_per_s = static_cast<double>(tokens[b]) / interval_s;
    if (!ttfts[b].empty()) {
      const Distribution d = distribution_of(std::move(ttfts[b]));
      tb.ttft_mean_ms = d.mean;
      tb.ttft_p99_ms = d.p99;
    }
  }
  return out;
}

}  // namespace sb::metrics
