#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sb::sim {

void SimMetrics::Histogram::observe(double v) {
  size_t i = std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin();
  ++counts[i];
  sum += v;
}

SimMetrics::SimMetrics(const SimConfig& c, TimePoint start) : cfg_(c), cost_(c) {
  auto make = [](std::vector<double> b) {
    Histogram h;
    h.counts.assign(b.size() + 1, 0);
    for (double bound : b) h.le_texts.push_back(fmt::format("{}", bound));
    h.bounds = std::move(b);
    return h;
  };
  tgi_duration_ = make({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60});
  vllm_ttft_ = make({0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
                     5.0, 7.5, 10.0, 20.0, 40.0, 80.0});
  vllm_e2e_ =
      make({0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0});
  // Buckets like vLLM's request-time histograms (0.3 s .. 960 s) and TGI's duration ones; the
  // decomposition reads _sum / _count, so the buckets only shape the page.
  const std::vector<double> phase = {0.3,  0.5,  0.8,  1.0,  1.5,  2.0,   2.5,   5.0,   10.0, 15.0,
                                     20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0};
  vllm_queue_ = vllm_prefill_ = vllm_decode_ = vllm_inference_ = make(phase);
  tgi_queue_ = tgi_inference_ = make(tgi_duration_.bounds);
  start_ = last_scrape_ = start;
  failure_labels_ = {{"err", "generation"}};
  model_labels_ = {{"model_name", cfg_.model.name}};
  gpu_labels_ = {{"gpu", "0"},
                 {"UUID", "GPU-00000000-0000-0000-0000-000000000000"},
                 {"device", "nvidia0"},
                 {"modelName", cfg_.gpu.name},
                 {"Hostname", "servebench-sim"}};
}

void SimMetrics::observe_phases(double queue_s, double prefill_s, double decode_s) {
  std::lock_guard lock(mu_);
  vllm_queue_.observe(queue_s);
  vllm_prefill_.observe(prefill_s);
  vllm_decode_.observe(decode_s);
  vllm_inference_.observe(prefill_s + decode_s);
  tgi_queue_.observe(queue_s);
  tgi_inference_.observe(prefill_s + decode_s);
}

void SimMetrics::observe_request(bool success, double duration_s, double ttft_s,
                                 int64_t prompt_tokens, int64_t output_tokens) {
  std::lock_guard lock(mu_);
  ++requests_;
  (success ? success_ : failures_)++;
  prompt_tokens_ += prompt_tokens;
  generation_tokens_ += output_tokens;
  if (success) {
    tgi_duration_.observe(duration_s);
    vllm_e2e_.observe(duration_s);
  }
  if (ttft_s >= 0) vllm_ttft_.observe(ttft_s);
}

bool SimMetrics::mean_since_last_scrape(std::string_view name) {
  return name == "DCGM_FI_DEV_GPU_UTIL" || name == "DCGM_FI_DEV_POWER_USAGE" ||
         name == "DCGM_FI_DEV_MEM_COPY_UTIL";
}

std::string SimMetrics::render(const SchedStats& s, TimePoint now) {
  PromPage page;
  fill_page(s, now, page);
  return prom_text_of(page);
}

void SimMetrics::fill_page(const SchedStats& s, TimePoint now, PromPage& page) {
  PromPageFill p(page);
  fill_page(s, now, p);
}

void SimMetrics::fill_page(const SchedStats& s, TimePoint now, PromPageFill& p) {
  std::lock_guard lock(mu_);
  // GPU utilisation: the fraction of wall time the engine spent in steps since the last scrape.
  Nanos wall = now - last_scrape_;
  Nanos busy = s.busy_total - last_busy_;
  double util = wall.count() > 0
                    ? std::clamp(static_cast<double>(busy.count()) / wall.count(), 0.0, 1.0)
                    : (s.busy ? 1.0 : 0.0);
  if (wall > std::chrono::milliseconds(100)) {
    last_scrape_ = now;
    last_busy_ = s.busy_total;
  }
  double kv_bytes = cost_.kv_bytes_per_token();
  double fb_bytes = cost_.weights_bytes() + cfg_.gpu.memory_reserve_bytes;
  fb_bytes += cfg_.sched.batching == BatchPolicy::continuous
                  ? static_cast<double>(s.kv_capacity_tokens) * kv_bytes   // paged KV, preallocated
                  : static_cast<double>(s.resident_kv_tokens) * kv_bytes;  // grows with use
  fb_bytes = std::min(fb_bytes, cfg_.gpu.memory_bytes);
  double kv_perc = s.kv_capacity_tokens > 0 ? static_cast<double>(s.kv_used_tokens) /
                                                  static_cast<double>(s.kv_capacity_tokens)
                                            : 0.0;
  const auto d = [](auto v) { return static_cast<double>(v); };
  const Labels none;
  const auto gauge = [&](std::string_view name, const Labels& labels, double v,
                         std::string_view help = {}) {
    p.family(name, PromType::gauge, help);
    p.sample(name, labels, v);
  };
  const auto counter = [&](std::string_view name, const Labels& labels, double v) {
    p.family(name, PromType::counter);
    p.sample(name, labels, v);
  };
  const auto histogram = [&](std::string_view name, const Histogram& h, const Labels& labels) {
    p.family(name, PromType::histogram);
    p.histogram(name, labels, h.le_texts, h.counts, h.sum);
  };
  gauge("tgi_queue_size", none, d(s.waiting));
  gauge("tgi_batch_current_size", none, d(s.running));
  gauge("tgi_batch_current_max_tokens", none, d(s.batch_max_tokens));
  counter("tgi_request_count", none, d(requests_));
  counter("tgi_request_success", none, d(success_));
  counter("tgi_request_failure", failure_labels_, d(failures_));
  histogram("tgi_request_duration", tgi_duration_, none);
  histogram("tgi_request_queue_duration", tgi_queue_, none);
  histogram("tgi_request_inference_duration", tgi_inference_, none);
  gauge("vllm:num_requests_running", model_labels_, d(s.running),
        "Number of requests currently running on GPU.");
  gauge("vllm:num_requests_waiting", model_labels_, d(s.waiting),
        "Number of requests waiting to be processed.");
  gauge("vllm:kv_cache_usage_perc", model_labels_, kv_perc,
        "KV-cache usage. 1 means 100 percent usage.");
  gauge("vllm:gpu_cache_usage_perc", model_labels_, kv_perc);
  counter("vllm:prompt_tokens_total", model_labels_, d(prompt_tokens_));
  counter("vllm:generation_tokens_total", model_labels_, d(generation_tokens_));
  histogram("vllm:time_to_first_token_seconds", vllm_ttft_, model_labels_);
  histogram("vllm:e2e_request_latency_seconds", vllm_e2e_, model_labels_);
  histogram("vllm:request_queue_time_seconds", vllm_queue_, model_labels_);
  histogram("vllm:request_prefill_time_seconds", vllm_prefill_, model_labels_);
  histogram("vllm:request_decode_time_seconds", vllm_decode_, model_labels_);
  histogram("vllm:request_inference_time_seconds", vllm_inference_, model_labels_);
  gauge("DCGM_FI_DEV_GPU_UTIL", gpu_labels_, d(std::lround(util * 100)), "GPU utilization (in %).");
  gauge("DCGM_FI_DEV_FB_USED", gpu_labels_, d(std::llround(fb_bytes / 1048576.0)),
        "Framebuffer memory used (in MiB).");
  gauge("DCGM_FI_DEV_POWER_USAGE", gpu_labels_,
        cfg_.gpu.idle_power_w + (cfg_.gpu.max_power_w - cfg_.gpu.idle_power_w) * util,
        "Power draw (in W).");
  gauge("DCGM_FI_DEV_MEM_COPY_UTIL", gpu_labels_,
        d(std::lround(util * cfg_.gpu.bandwidth_efficiency * 100)), "Memory utilization (in %).");
}

}  // namespace sb::sim
