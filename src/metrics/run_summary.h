#pragma once
// The run-level numbers of docs/metrics.md, computed once from every request record after the run.
//
// Which requests count:
//   - warm-up requests are counted (requests.warmup) and otherwise ignored: "measured" below
//     means warmup == false;
//   - requests.total = measured requests = ok + failed (warm-up not included);
//   - latency and token distributions (ttft, ttft_content, tpot, itl, e2e, scheduled_e2e,
//     input_tokens, output_tokens) are over measured ok requests, each over those where the
//     metric is defined; itl pools every gap of those requests (exact, all samples, vLLM ITL);
//   - dispatch_delay is over every measured request that was sent (t_sched and t_send known),
//     whatever its outcome.
// Throughput: over the measured window = first t_send to last t_end of measured requests;
//   requests_per_s = ok requests / window; {input,output}_tokens_per_s sum the tokens of ok
//   requests (as vLLM: a failed request contributes none); total = input + output.
// success_rate = ok / total. errors = measured failures by class name (ok not listed).
// Goodput: requests_per_s = measured requests meeting the SLO / window; fraction = those /
//   requests.total. Undefined (nullopt) when no SLO was given. See goodput.h for "meets".
// Load: achieved_rate = (N - 1) / (last t_send - first t_send) over the N measured requests
//   that were sent: the mean send rate between the first and the last send (undefined for
//   N < 2 or a zero span); late_sends = measured sent requests with dispatch_delay > 1 ms.
// Abandonment (only with --abandon-after): abandoned = measured requests of class `abandoned`
//   (their user gave up waiting for a first token, counted from t_sched); rate = abandoned /
//   requests.total. They are failures: not ok, so never good for goodput.
// Token sources: per source name, the measured ok requests whose output_tokens came from it;
//   discrepancy over those that also have an independent count (output_tokens_alt >= 0):
//   mean |output_tokens - output_tokens_alt| and mean of that / max(output_tokens, 1).
// Classes: the same numbers per request class, when the measured requests have more than one
//   class or one named class (not "default"); their throughput uses the run's measured
//   window, so class rates add up to the run's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/client_health.h"
#include "metrics/cost.h"
#include "metrics/decomposition.h"
#include "metrics/distribution.h"
#include "metrics/energy.h"
#include "metrics/goodput.h"
#include "metrics/priority_summary.h"
#include "metrics/request_record.h"
#include "metrics/session_stats.h"
#include "metrics/timeseries.h"
#include "quality/request_quality.h"

namespace sb::metrics {

// A replayed trace (--trace, workload/trace.h): what was replayed, as the caller read it.
struct TraceInfo {
  std::string file, format;  // the --trace path, mooncake | burstgpt | azure | jsonl
  int64_t entries = 0;       // entries replayed (kept by the window)
  int64_t lines = 0;         // data lines read (blank lines and a CSV header not counted)
  int64_t skipped = 0;       // bad lines skipped
  int64_t out_of_order = 0;  // lines earlier than the one before them (sorted)
  int64_t outside_window = 0;
  double window_start_s = 0;  // trace seconds since its first entry
  std::optional<double> window_end_s;
  double speedup = 1;
  double span_s = 0;  // trace seconds from the window's start to its last entry
};

// TraceInfo with the schedule lag: how late the measured sends were against the trace, i.e.
// the dispatch delay (t_send - t_sched, t_sched = the entry's offset / speedup) of every
// measured request that was sent; late_share = those later than 1 ms (load.late_sends) / sent.
struct TraceReplay {
  TraceInfo info;
  Distribution schedule_lag_ms;  // = metrics.dispatch_delay_ms
  std::optional<double> late_share;
};

// What the caller knows about the run, beyond the records. Plain data, filled by the engine.
struct RunInfo {
  std::string tool_name = "servebench";
  std::string tool_version;
  nlohmann::json config = nlohmann::json::object();  // effective config, secrets already redacted
  nlohmann::json host = nlohmann::json::object();    // host facts
  std::string started_at;                            // ISO-8601 UTC, e.g. "2026-12-02T13:06:43Z"
  double duration_s = 0;                             // wall time of the whole run, warm-up included
  bool interrupted = false;
  std::string load_mode = "closed";  // "closed" | "open"
  int concurrency = 0;               // closed loop
  double target_rate = 0;            // open loop requests/s; 0 if none
  int max_concurrency = 0;           // open-loop cap; 0 if none
  Slo slo;
  double bucket_interval_ms = 1000;       // <= 0: no time series
  nlohmann::json telemetry;               // summary.json `telemetry` (src/telemetry); null: none
  ClientLoopInfo client_loop;             // the engine's loop-lag probes (client_health.h)
  std::optional<double> abandon_after_s;  // --abandon-after; nullopt: users never give up
  std::optional<TraceInfo> trace;         // --trace; nullopt: no trace replayed
};

struct RequestCounts {
  int64_t total = 0;  // measured = ok + failed
  int64_t ok = 0;
  int64_t failed = 0;
  int64_t warmup = 0;
};

struct MetricSet {
  Distribution ttft_ms, ttft_content_ms, tpot_ms, itl_ms, e2e_ms, scheduled_e2e_ms,
      dispatch_delay_ms, input_tokens, output_tokens;
  // Over the measured ok requests that reasoned (RequestRecord::reasoning_tokens >= 0):
  // their reasoning_tokens, and their reasoning_ms (TTFO - TTFT). Empty when none reasoned.
  Distribution reasoning_tokens, reasoning_ms;
};

struct Throughput {
  double window_s = 0;  // first t_send .. last t_end of measured requests; 0 if unknown
  // All undefined when window_s == 0.
  std::optional<double> requests_per_s, input_tokens_per_s, output_tokens_per_s, total_tokens_per_s;
  // --api embeddings / rerank: the items (RequestRecord::items) of the ok requests / window;
  // undefined when no ok request carried items.
  std::optional<double> items_per_s;
};

struct GoodputResult {
  Slo slo;
  int64_t good = 0;                      // measured requests meeting the SLO
  std::optional<double> requests_per_s;  // good / window
  std::optional<double> fraction;        // good / requests.total
};

struct LoadResult {
  std::string mode;  // "closed" | "open"
  int concurrency = 0;
  double target_rate = 0;
  int max_concurrency = 0;
  std::optional<double> achieved_rate;
  int64_t late_sends = 0;  // dispatch_delay > 1 ms
};

struct Abandonment {
  double after_s = 0;          // --abandon-after
  int64_t abandoned = 0;       // measured requests whose user gave up (class abandoned)
  std::optional<double> rate;  // abandoned / requests.total; undefined with no requests
};

struct TokenSourceStats {
  std::map<std::string, int64_t> counts;  // source name -> measured ok requests
  int64_t discrepancy_count = 0;          // requests with both counts
  // Those requests by "<source>_vs_<alt source>", e.g. "tokenizer_vs_usage" (--tokenizer
  // against the server's usage) or "usage_vs_estimate".
  std::map<std::string, int64_t> discrepancy_pairs;
  std::optional<double> mean_abs_diff_tokens;
  std::optional<double> mean_abs_rel_diff;
};

using ErrorCounts = std::map<std::string, int64_t>;  // error class name -> count, ok excluded

// Per request class (RequestRecord::request_class).
struct ClassSummary {
  RequestCounts requests;  // warmup always 0 here
  MetricSet metrics;
  Throughput throughput;
  ErrorCounts errors;
  std::optional<quality::CorpusQuality> quality;
};

struct RunSummary {
  RequestCounts requests;
  std::optional<double> success_rate;  // ok / total
  MetricSet metrics;
  Throughput throughput;
  GoodputResult goodput;
  LoadResult load;
  ErrorCounts errors;
  std::optional<Abandonment> abandonment;   // only when --abandon-after was given
  std::optional<TraceReplay> trace;         // only when a trace was replayed (--trace)
  std::optional<SessionStats> sessions;     // only when requests were session turns
  std::optional<PrioritySummary> priority;  // only with --priority-mix (priority_summary.h)
  TokenSourceStats token_sources;
  // Corpus quality of the measured requests scored against a reference (ok ones with a
  // work-item reference; quality/request_quality.h); nullopt when none was scored.
  std::optional<quality::CorpusQuality> quality;
  std::map<std::string, ClassSummary> classes;  // empty when all are "default"
  double bucket_interval_ms = 0;  // of `timeseries`: the asked one, or wider (kMaxTimeBuckets)
  std::vector<TimeBucket> timeseries;
  // Energy over the measured window (energy.h) and cost (cost.h): set after summarize_run by
  // the run's executor (plan/run_economics.h), which knows the power samples and the price;
  // nullopt when not computed (energy) or no price was given (cost).
  std::optional<EnergySummary> energy;
  std::optional<CostSummary> cost;
  // Where the time went (decomposition.h): client phases, server times, histogram means.
  Decomposition decomposition;
  ClientHealth client_health;  // client_health.h: was the client the bottleneck?
};

RunSummary summarize_run(const std::vector<RequestRecord>& records, const RunInfo& info);

}  // namespace sb::metrics
