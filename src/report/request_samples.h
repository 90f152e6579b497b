#pragma once
// What `report`, `compare` and `agree` use of a run's requests.jsonl, gathered record by record
// as the log is read (results::scan_request_log) instead of holding the records (~430 bytes
// each and more): per measured ok request 8 bytes for each of TTFT, TPOT and e2e where
// defined, 16 for its completion (end, tokens), 4 a streamed gap and 8 per request with gaps.
// A report on a run of 10 M non-streamed records holds about 0.4 GiB for them (and the texts
// when the run saved outputs). Every vector is in the log's order: by id.
//
// Which requests count: measured (not warm-up) ones; the latencies, gaps and completions only
// of those that succeeded (ok), as the run's summary counts them (docs/metrics.md).
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/request_record.h"
#include "quality/agreement.h"

namespace sb::report {

struct RequestSamples {
  int64_t measured = 0;  // non-warm-up records
  int64_t ok = 0;        // of them, ok
  // The ok measured requests' metrics, each vector only where the metric is defined and finite.
  std::vector<double> ttft_ms, tpot_ms, e2e_ms;
  // The ok measured requests' inter-token gaps (finite ones), flattened: the k-th request that
  // has any holds itl_ms[itl_begin[k] .. itl_begin[k + 1]).
  std::vector<float> itl_ms;
  std::vector<uint64_t> itl_begin{0};
  // The earliest t_send of a measured request (kNoTime when none).
  int64_t first_send_ns = metrics::kNoTime;
  // The ok measured requests that ended (t_end set), sorted by t_end after finish().
  struct Completion {
    int64_t t_end_ns = 0;
    int64_t output_tokens = 0;
  };
  std::vector<Completion> completions;
  // The measured requests' texts: only when the run saved outputs (add's keep_outputs).
  struct Output {
    uint64_t id = 0;
    bool ok = false;
    std::string text;
    int64_t output_tokens = 0;
  };
  std::vector<Output> outputs;

  size_t itl_requests() const { return itl_begin.size() - 1; }
  // Per completion, in t_end order, the seconds since the one before (the first: since the first
  // send, or 0 without one): what a throughput's interval resamples.
  std::vector<double> completion_gaps_s() const;
  // Views of `outputs` for quality::compute_agreement (valid while this object lives).
  std::vector<quality::RunOutput> output_views() const;

  // Room for this many ok requests and gaps (summary.json's counts), so that the vectors do not
  // grow past what they hold (a doubling of a GiB of gaps); optional.
  void reserve(int64_t ok_requests, int64_t gaps);
  // What add keeps beyond the latencies and completions.
  struct Keep {
    bool outputs = false;  // the texts (`outputs`)
    bool gaps = true;      // the inter-token gaps (`itl_ms`; without them itl_requests() is 0)
  };
  // Takes one record (in id order); warm-up records only count nowhere.
  void add(const metrics::RequestRecord& r, Keep keep);
  // Sorts the completions by t_end; call once after the last add.
  void finish();
};

}  // namespace sb::report
