#pragma once
// The simulator's GET /metrics: Prometheus text exposition with TGI names
// (tgi_*), vLLM names (vllm:*) and simulated DCGM exporter GPU gauges
// (DCGM_FI_DEV_*), all derived from the same engine state. Thread-safe.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/prom_page.h"
#include "sim/config.h"
#include "sim/cost_model.h"
#include "sim/scheduler.h"

namespace sb::sim {

class SimMetrics {
 public:
  // `start`: the instant utilisation counts from (predict passes its virtual run start).
  explicit SimMetrics(const SimConfig& c, TimePoint start = Clock::now());

  // A finished request (any outcome). duration/ttft in seconds of wall time;
  // ttft < 0 when no token was sent.
  void observe_request(bool success, double duration_s, double ttft_s, int64_t prompt_tokens,
                       int64_t output_tokens);
  // Where a successful request's time went, in seconds (the model's instants): queue =
  // arrival to admission, prefill = admission to the first token, decode = first to last
  // token. On /metrics as vLLM's request_{queue,prefill,decode,inference}_time_seconds and
  // TGI's tgi_request_{queue,inference}_duration histograms.
  void observe_phases(double queue_s, double prefill_s, double decode_s);
  // The exposition from the engine's state at `now`, as data: refills `page` in place (a page
  // refilled every sample of a virtual run allocates nothing once warm). Each call is a scrape:
  // GPU utilisation counts the engine's busy time since the call before.
  void fill_page(const SchedStats& s, TimePoint now, PromPage& page);
  // The same families written through a fill the caller holds, so that it can append its own
  // (the live simulator's connection counters) to one page.
  void fill_page(const SchedStats& s, TimePoint now, PromPageFill& p);
  // The same page as text (prom_text_of).
  std::string render(const SchedStats& s, TimePoint now);
  // Whether the page's metric `name` is a mean over the time since the scrape before (GPU
  // and memory-bandwidth utilisation, power), not the state at the instant.
  static bool mean_since_last_scrape(std::string_view name);

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;       // per bucket, non-cumulative; last = +Inf
    std::vector<std::string> le_texts;  // the bounds as the page's `le` values
    double sum = 0;
    void observe(double v);
  };
  SimConfig cfg_;
  CostModel cost_;
  std::mutex mu_;
  uint64_t requests_ = 0, success_ = 0, failures_ = 0;
  int64_t prompt_tokens_ = 0, generation_tokens_ = 0;
  Histogram tgi_duration_, vllm_ttft_, vllm_e2e_;
  Histogram vllm_queue_, vllm_prefill_, vllm_decode_, vllm_inference_, tgi_queue_, tgi_inference_;
  Labels failure_labels_, model_labels_, gpu_labels_;
  TimePoint start_, last_scrape_;
  Nanos last_busy_{0};
};

}  // namespace sb::sim
