#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/prom_histogram.h"

namespace sb::sim {

void SimMetrics::Histogram::observe(double v) {
  size_t i = std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin();
  ++counts[i];
  sum += v;
}

void SimMetrics::Histogram::render(std::string& out, std::string_view name,
                                   std::string_view labels) const {
  append_prom_histogram(out, name, labels, bounds, counts, sum);
}

SimMetrics::SimMetrics(const SimConfig& c, TimePoint start) : cfg_(c), cost_(c) {
  auto make = [](std::vector<double> b) {
    Histogram h;
    h.counts.assign(b.size() + 1, 0);
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

std::string SimMetrics::render(const SchedStats& s, TimePoint now) {
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
  std::string out;
  out.reserve(8192);
  std::string model = fmt::format("model_name=\"{}\"", cfg_.model.name);
  out += "# TYPE tgi_queue_size gauge\n";
  out += fmt::format("tgi_queue_size {}\n", s.waiting);
  out += "# TYPE tgi_batch_current_size gauge\n";
  out += fmt::format("tgi_batch_current_size {}\n", s.running);
  out += "# TYPE tgi_batch_current_max_tokens gauge\n";
  out += fmt::format("tgi_batch_current_max_tokens {}\n", s.batch_max_tokens);
  out += "# TYPE tgi_request_count counter\n";
  out += fmt::format("tgi_request_count {}\n", requests_);
  out += "# TYPE tgi_request_success counter\n";
  out += fmt::format("tgi_request_success {}\n", success_);
  out += "# TYPE tgi_request_failure counter\n";
  out += fmt::format("tgi_request_failure{{err=\"generation\"}} {}\n", failures_);
  out += "# TYPE tgi_request_duration histogram\n";
  tgi_duration_.render(out, "tgi_request_duration", "");
  out += "# TYPE tgi_request_queue_duration histogram\n";
  tgi_queue_.render(out, "tgi_request_queue_duration", "");
  out += "# TYPE tgi_request_inference_duration histogram\n";
  tgi_inference_.render(out, "tgi_request_inference_duration", "");
  out += "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n";
  out += "# TYPE vllm:num_requests_running gauge\n";
  out += fmt::format("vllm:num_requests_running{{{}}} {}\n", model, s.running);
  out += "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n";
  out += "# TYPE vllm:num_requests_waiting gauge\n";
  out += fmt::format("vllm:num_requests_waiting{{{}}} {}\n", model, s.waiting);
  out += "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n";
  out += "# TYPE vllm:kv_cache_usage_perc gauge\n";
  out += fmt::format("vllm:kv_cache_usage_perc{{{}}} {}\n", model, kv_perc);
  out += "# TYPE vllm:gpu_cache_usage_perc gauge\n";
  out += fmt::format("vllm:gpu_cache_usage_perc{{{}}} {}\n", model, kv_perc);
  out += "# TYPE vllm:prompt_tokens_total counter\n";
  out += fmt::format("vllm:prompt_tokens_total{{{}}} {}\n", model, prompt_tokens_);
  out += "# TYPE vllm:generation_tokens_total counter\n";
  out += fmt::format("vllm:generation_tokens_total{{{}}} {}\n", model, generation_tokens_);
  out += "# TYPE vllm:time_to_first_token_seconds histogram\n";
  vllm_ttft_.render(out, "vllm:time_to_first_token_seconds", model);
  out += "# TYPE vllm:e2e_request_latency_seconds histogram\n";
  vllm_e2e_.render(out, "vllm:e2e_request_latency_seconds", model);
  for (const auto& [h, name] : {std::pair{&vllm_queue_, "vllm:request_queue_time_seconds"},
                                {&vllm_prefill_, "vllm:request_prefill_time_seconds"},
                                {&vllm_decode_, "vllm:request_decode_time_seconds"},
                                {&vllm_inference_, "vllm:request_inference_time_seconds"}}) {
    out += fmt::format("# TYPE {} histogram\n", name);
    h->render(out, name, model);
  }
  std::string gpu = fmt::format(
      "gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\",device=\"nvidia0\","
      "modelName=\"{}\",Hostname=\"servebench-sim\"",
      cfg_.gpu.name);
  out += "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n";
  out += fmt::format("DCGM_FI_DEV_GPU_UTIL{{{}}} {}\n", gpu, std::lround(util * 100));
  out +=
      "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n# TYPE DCGM_FI_DEV_FB_USED "
      "gauge\n";
  out += fmt::format("DCGM_FI_DEV_FB_USED{{{}}} {}\n", gpu, std::llround(fb_bytes / 1048576.0));
  out +=
      "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n";
  out += fmt::format("DCGM_FI_DEV_POWER_USAGE{{{}}} {:.3f}\n", gpu,
                     cfg_.gpu.idle_power_w + (cfg_.gpu.max_power_w - cfg_.gpu.idle_power_w) * util);
  out +=
      "# HELP DCGM_FI_DEV_MEM_COPY_UTIL Memory utilization (in %).\n# TYPE "
      "DCGM_FI_DEV_MEM_COPY_UTIL gauge\n";
  out += fmt::format("DCGM_FI_DEV_MEM_COPY_UTIL{{{}}} {}\n", gpu,
                     std::lround(util * cfg_.gpu.bandwidth_efficiency * 100));
  return out;
}

}  // namespace sb::sim
