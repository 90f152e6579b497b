#pragma once
// "Where the time goes" in the report (docs/metrics.md): per load level, the mean e2e of the
// measured ok requests split into the server's queue, prefill and decode (or inference, where
// the server reports only their sum) and what the client and the network added, from each
// run's summary.json `decomposition`: the per-request server times when the server reported
// them, else its request-phase histograms' means over the run (vLLM, TGI /metrics).
//
// The sentence names TTFT's dominant part at the highest judged level ("at c=128 queueing is
// 71% of TTFT ...: the server is saturated"), what the client added there, and the share of
// e2e's growth from the lowest judged level that is queueing. Levels with too few requests
// (Level::judged false) are never used for it; times of a time-scaled simulator are wall
// times and the sentence says so.
#include <optional>
#include <string>
#include <vector>

#include "report/run_folder.h"
#include "report/study.h"
#include "report/svg_chart.h"

namespace sb::report {

struct TimeSplit {
  double load = 0;
  int64_t n = 0;  // measured ok requests of the level
  bool judged = false;
  double time_scale = 1;
  std::string source;  // tgi_headers | llamacpp_timings | vllm_metrics | tgi_metrics | ""
  std::optional<double> ttft_ms, e2e_ms;                                // the client's means
  std::optional<double> queue_ms, prefill_ms, decode_ms, inference_ms;  // the server's means
  std::optional<double> client_network_ms;  // e2e minus the server's parts, >= 0
  // The client's and network's share of TTFT: ttft - queue - prefill, when both are known.
  std::optional<double> client_ttft_ms;
};

// One level's split from its run's summary.json (n = 0 and no values without `decomposition`).
TimeSplit time_split(const Level& level);
std::vector<TimeSplit> time_splits(const Group& group);

// The sentence for a group, "" when no judged level has a server-side split.
std::string time_sentence(const Group& group, const std::vector<TimeSplit>& splits);

// The stacked bars of a group: per level, the mean e2e as queue, prefill, decode (or
// inference) and client + network; nullopt when no level has a server-side part.
std::optional<svg::BarChart> time_chart(const Group& group, const std::vector<TimeSplit>& splits,
                                        const std::string& id);

}  // namespace sb::report
