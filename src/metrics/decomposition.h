#pragma once
// Where the time went (docs/metrics.md, "Where the time goes"): the client's phases and the
// server's own times of the measured ok requests, from their records, and the run-level server
// components from /metrics histogram deltas where a server reports no per-request times (vLLM).
//
// Per request: e2e = client_network + server_total where the server reports a total (TGI);
// ttft = ttfb + (first text after the first byte), and on the server's side queue + prefill
// (+ validation) make up most of it. Every distribution is over the requests where that part
// was reported or happened (connect_ms: new connections only), so counts differ.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/column.h"
#include "metrics/distribution.h"
#include "metrics/request_record.h"

namespace sb::metrics {

// A server component's run-level mean from a /metrics histogram's _sum / _count over the run.
struct HistogramMean {
  std::string metric;  // e.g. "vllm:request_queue_time_seconds"
  double count = 0;    // requests the server observed over the run
  double mean_ms = 0;
};

struct ServerHistograms {
  std::string source;  // "vllm_metrics" | "tgi_metrics" | "" (none found)
  std::optional<HistogramMean> queue, prefill, decode, inference;
};

struct Decomposition {
  int64_t requests = 0;  // measured ok requests
  int64_t reused = 0;    // of those, sent on a kept-alive connection
  Distribution ttft_ms, e2e_ms;
  Distribution pool_wait_ms, connect_ms, tls_ms, write_ms, ttfb_ms, headers_ms, read_lag_max_ms;
  // Per-request server times; source: the one most of the reporting requests used.
  std::string server_source = "none";
  int64_t server_reported = 0;  // requests with any server time
  Distribution server_queue_ms, server_prefill_ms, server_decode_ms, server_inference_ms,
      server_total_ms, server_cached_tokens, client_network_ms;
  ServerHistograms histograms;  // set by the caller from the run's scrapes
};

// The decomposition of the measured ok requests, one record at a time (run_accumulator.h):
// a column per phase, the records not kept. TTFT and e2e, the run's own distributions over
// the same requests, come from the caller.
class DecompositionAccumulator {
 public:
  void add(const RequestRecord& r);  // skips warm-up and failed requests
  // Call once; histograms left for the caller.
  Decomposition finish(Distribution ttft_ms, Distribution e2e_ms);

 private:
  Decomposition d_;
  Column<float> pool_, connect_, tls_, write_, ttfb_, headers_, lag_;
  Column<double> queue_, prefill_, decode_, inference_, total_, cached_, client_;
  std::map<ServerTimingSource, int64_t> sources_;
};

Decomposition decompose(const std::vector<RequestRecord>& records);

}  // namespace sb::metrics
