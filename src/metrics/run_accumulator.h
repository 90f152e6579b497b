#pragma once
// summarize_run (run_summary.h) one record at a time, holding no records: what the run
// summary needs of each request is pushed into per-metric columns (column.h) and counters as
// it arrives, and finish() computes the same RunSummary. summarize_run itself is this over a
// vector, so a run's own summary and `summarize` of its requests.jsonl are one computation.
//
// Memory: 8 bytes per defined sample of each latency and token metric (ttft, ttft_content,
// tpot, e2e, scheduled_e2e, dispatch_delay, input and output tokens, reasoning), 2 more per
// sample once a run has several request classes, 4 per client phase, 8 per server time, 8
// per TTFT in the time series; inter-token gaps 4 bytes each up to 128 MiB per class, the rest
// in a temporary file (float_samples.h). A record itself is ~430 bytes.
//
// Order: feed the records in the order summarize_run would see them (by id, ties in file
// order): means are sums in that order, so another order may change their last bits.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/column.h"
#include "metrics/decomposition.h"
#include "metrics/float_samples.h"
#include "metrics/priority_summary.h"
#include "metrics/request_record.h"
#include "metrics/run_summary.h"
#include "metrics/session_stats.h"
#include "metrics/timeseries.h"
#include "quality/request_quality.h"

namespace sb::metrics {

class RunAccumulator {
 public:
  // Keeps what add() needs of `info`: the SLO and the bucket interval.
  explicit RunAccumulator(const RunInfo& info);
  void add(const RequestRecord& r);
  // The summary of every record added; call once, with the same info.
  RunSummary finish(const RunInfo& info);

 private:
  // Request classes get a small index (column tags): at most this many.
  static constexpr size_t kMaxClasses = 65535;
  static constexpr size_t kTokenSources = 5;  // TokenSource's values
  static constexpr size_t kErrorClasses = static_cast<size_t>(ErrorClass::abandoned) + 1;

  struct Counts {  // per class and for the run
    RequestCounts requests;
    std::array<int64_t, kErrorClasses> errors{};
    int64_t ok_input_tokens = 0, ok_output_tokens = 0, ok_items = 0;
    bool pooling = false;  // an ok request carried items
    quality::QualityTotals quality;
  };
  uint16_t class_of(const std::string& name);
  void count(Counts& c, const RequestRecord& r) const;
  MetricSet metrics_of(uint16_t group) const;
  MetricSet take_metrics();

  Slo slo_;
  int64_t warmup_ = 0;
  Counts all_;
  std::vector<std::string> class_names_;
  std::map<std::string, uint16_t> class_index_;
  std::vector<Counts> class_counts_;
  uint16_t last_class_ = 0;

  // The columns of MetricSet, tagged with the request's class.
  TaggedColumn<double> ttft_, ttft_content_, tpot_, e2e_, sched_e2e_, delay_, in_tok_, out_tok_,
      reason_tok_, reason_ms_;
  std::vector<FloatSamples> itl_;  // per class: a run's gaps may not fit in memory

  int64_t first_send_ns_ = kNoTime, last_end_ns_ = kNoTime;  // the measured window
  int64_t load_first_ns_ = kNoTime, load_last_ns_ = kNoTime, sent_ = 0, late_sends_ = 0;
  int64_t good_ = 0, abandoned_ = 0;
  // Token sources of ok requests, and their discrepancies (source x alt source).
  std::array<int64_t, kTokenSources> source_counts_{};
  std::array<std::array<int64_t, kTokenSources>, kTokenSources> discrepancy_pairs_{};
  int64_t discrepancies_ = 0;
  double abs_diff_sum_ = 0, rel_diff_sum_ = 0;

  SessionAccumulator sessions_;
  PriorityAccumulator priorities_;
  TimeseriesAccumulator timeseries_;
  DecompositionAccumulator decomposition_;
};

}  // namespace sb::metrics
