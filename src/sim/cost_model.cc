#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>

namespace sb::sim {

CostModel::CostModel(const SimConfig& c) : scale_(c.time_scale) {
  weights_bytes_ = c.model_params * c.bytes_per_param;
  kv_bytes_per_token_ = 2.0 * c.num_layers * c.kv_dim * c.kv_bytes_per_elem;  // K and V
  if (c.kv_capacity_tokens > 0) {
    kv_capacity_tokens_ = c.kv_capacity_tokens;
  } else {
    double free_bytes = c.gpu_memory_bytes - weights_bytes_ - c.memory_reserve_bytes;
    kv_capacity_tokens_ =
        kv_bytes_per_token_ > 0
            ? std::max<int64_t>(0, static_cast<int64_t>(free_bytes / kv_bytes_per_token_))
            : INT64_MAX / 4;
  }
  double bw = c.gpu_bandwidth_bytes_per_s * c.bandwidth_efficiency;
  weights_read_s_ = c.decode_step_ms > 0 ? c.decode_step_ms / 1e3 : weights_bytes_ / bw;
  kv_read_per_token_s_ = kv_bytes_per_token_ / bw;
  per_token_compute_s_ = c.prefill_ms_per_token > 0 ? c.prefill_ms_per_token / 1e3
                                                    : 2.0 * c.model_params / (c.gpu_flops * c.mfu);
  step_overhead_s_ = c.step_overhead_ms / 1e3;
  prefill_overhead_s_ = c.prefill_overhead_ms / 1e3;
  overhead_ = from_s(c.overhead_ms / 1e3 * scale_);
}

Nanos CostModel::prefill(int64_t prompt_tokens) const {
  double s = prefill_overhead_s_ +
             std::max(weights_read_s_, static_cast<double>(prompt_tokens) * per_token_compute_s_);
  return from_s(s * scale_);
}

Nanos CostModel::decode_step(int64_t batch_size, int64_t kv_tokens) const {
  double mem = weights_read_s_ + static_cast<double>(kv_tokens) * kv_read_per_token_s_;
  double compute = static_cast<double>(batch_size) * per_token_compute_s_;
  return from_s((step_overhead_s_ + std::max(mem, compute)) * scale_);
}

}  // namespace sb::sim
