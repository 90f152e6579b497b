#pragma once
// The --bucket-interval time series (docs/metrics.md, issue 2 item 6).
//
// Buckets are consecutive intervals [k*I, (k+1)*I) of the run clock, starting at run start
// (t = 0), up to the bucket holding the latest instant of any given record. Callers pass the
// measured requests only (the run summary excludes warm-up), so the buckets of a warm-up phase
// show zeros. Per bucket:
//   started     requests whose start fell in the bucket; start = t_send, or t_sched for a
//               request that was never sent (e.g. connect error), or t_end if neither is known
//   completed   requests whose t_end fell in the bucket, whatever their outcome
//   errors      of those, the ones that are not ok
//   in_flight   started so far minus completed so far, at the bucket's end
//   requests_per_s       ok completions in the bucket / I (the run-level definition)
//   output_tokens_per_s  output tokens of the ok requests completed in the bucket / I: tokens are
//               attributed to the bucket where their request completed, not spread over its life
//   ttft_mean_ms, ttft_p99_ms   over the ok requests whose first token (t_first) fell in the
//               bucket; p99 as Distribution (numpy linear); undefined when there are none
// The last bucket may be partly after the run's end; its rates are still divided by I.
#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/request_record.h"

namespace sb::metrics {

struct TimeBucket {
  double t_start_s = 0;  // bucket start, seconds since run start
  int64_t started = 0;
  int64_t completed = 0;
  int64_t errors = 0;
  int64_t in_flight = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  std::optional<double> ttft_mean_ms;
  std::optional<double> ttft_p99_ms;
};

// At most this many buckets: a run longer than that many intervals (or a requests.jsonl
// with a corrupt time far in the future) gets a wider interval, the smallest whole multiple
// of the asked one that fits; t_start_s shows the spacing used.
inline constexpr size_t kMaxTimeBuckets = 200'000;

// Buckets of `interval_ms` (> 0; otherwise an empty series) over `records`.
std::vector<TimeBucket> build_timeseries(const std::vector<const RequestRecord*>& records,
                                         double interval_ms);

}  // namespace sb::metrics
