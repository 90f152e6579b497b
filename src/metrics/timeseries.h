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

// At most this many buckets: a run longer than that many intervals (2.8 h at 1 s; a predicted
// run can model days) or a requests.jsonl with a corrupt time far in the future gets a wider
// interval, the smallest whole multiple of the asked one that fits; t_start_s shows the spacing
// used. It keeps summary.json's series under ~2 MB (a run modelling 47 h at 1 s wrote 30 MB,
// and every report and plan index of it parsed them).
inline constexpr size_t kMaxTimeBuckets = 10'000;

// The same one record at a time, holding none (run_accumulator.h): per bucket its counters
// and the TTFTs that fell in it. While records arrive the buckets are of the asked interval;
// should they pass kMaxBaseBuckets (a far-future time) they are merged into whole multiples of
// it at once, and finish() widens as above to a multiple of the width then in use.
class TimeseriesAccumulator {
 public:
  static constexpr size_t kMaxBaseBuckets = 4 * kMaxTimeBuckets;

  explicit TimeseriesAccumulator(double interval_ms) : interval_ms_(interval_ms) {}
  void add(const RequestRecord& r);
  std::vector<TimeBucket> finish();  // call once
  // The buckets' interval: the asked one, or after finish() the wider one it used.
  double interval_ms() const { return interval_ms_ * static_cast<double>(width_); }

 private:
  struct Bucket {
    int64_t started = 0, completed = 0, errors = 0, ok_completed = 0, tokens = 0;
    std::vector<double> ttft;
  };
  size_t bucket_of(int64_t t) const;
  Bucket& bucket_at(int64_t t);  // grows (or merges) the buckets to hold t's
  void merge(int64_t groups_of);

  double interval_ms_;
  int64_t width_ = 1;  // the buckets' width in asked intervals
  int64_t latest_ = kNoTime;
  bool any_ = false;
  std::vector<Bucket> buckets_;
};

// Buckets of `interval_ms` (> 0; otherwise an empty series) over `records`.
std::vector<TimeBucket> build_timeseries(const std::vector<const RequestRecord*>& records,
                                         double interval_ms);

}  // namespace sb::metrics
