#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>

namespace sb::sim {

double kv_bytes_per_token_per_gpu(const SimConfig& c) {
  const int n = std::max(1, c.parallel.tp);
  double kv_dim_per_gpu = c.model.kv_dim;
  if (n > 1) {
    if (c.model.head_dim > 0 && c.model.kv_dim % c.model.head_dim == 0) {
      const int kv_heads = c.model.kv_dim / c.model.head_dim;
      kv_dim_per_gpu =
          static_cast<double>((kv_heads + n - 1) / n) * c.model.head_dim;  // replicated
    } else {
      kv_dim_per_gpu = static_cast<double>(c.model.kv_dim) / n;
    }
  }
  return 2.0 * c.model.num_layers * kv_dim_per_gpu * c.model.kv_bytes_per_elem;  // K and V
}

CostModel::CostModel(const SimConfig& c) : scale_(c.server.time_scale) {
  const double n = std::max(1, c.parallel.tp);
  const double dequant = 1.0 + c.model.dequant_overhead;
  weights_bytes_ = c.model.params * c.model.bytes_per_param / n;
  kv_bytes_per_token_ = kv_bytes_per_token_per_gpu(c);
  if (c.cost.kv_capacity_tokens > 0) {
    kv_capacity_tokens_ = c.cost.kv_capacity_tokens;
  } else {
    double free_bytes = c.gpu.memory_bytes - weights_bytes_ - c.gpu.memory_reserve_bytes;
    kv_capacity_tokens_ =
        kv_bytes_per_token_ > 0
            ? std::max<int64_t>(0, static_cast<int64_t>(free_bytes / kv_bytes_per_token_))
            : INT64_MAX / 4;
  }
  double bw = c.gpu.bandwidth_bytes_per_s * c.gpu.bandwidth_efficiency;
  // Read per step: every weight but the input embedding (only its looked-up rows are read).
  const double embed = std::clamp(c.model.embedding_params, 0.0, c.model.params / 2);
  const double read_params = c.model.params - embed;
  weights_read_s_ = c.cost.decode_step_ms > 0
                        ? c.cost.decode_step_ms / 1e3
                        : read_params * c.model.bytes_per_param / n / bw * dequant;
  kv_read_per_token_s_ = kv_bytes_per_token_ / bw;
  const double flop_s = c.gpu.flops * c.gpu.mfu / dequant;
  // A decode token multiplies the output head too; a prompt token does not (only the
  // prompt's last one, which the first decode step's share covers).
  per_token_compute_s_ = c.cost.prefill_ms_per_token > 0 ? c.cost.prefill_ms_per_token / 1e3
                                                         : 2.0 * read_params / n / flop_s;
  prefill_token_compute_s_ = c.cost.prefill_ms_per_token > 0
                                 ? c.cost.prefill_ms_per_token / 1e3
                                 : 2.0 * (read_params - embed) / n / flop_s;
  // QK^T and softmax(.)V: 2 multiply-adds per head dimension of each (query, key) pair.
  // (0 with prefill_ms_per_token: that figure is a prompt token's whole cost.)
  attention_pair_s_ =
      c.cost.prefill_ms_per_token > 0
          ? 0
          : 4.0 * c.model.num_layers * c.model.hidden_size / n / (c.gpu.flops * c.gpu.mfu);
  step_overhead_s_ = c.cost.step_overhead_ms / 1e3;
  prefill_overhead_s_ = c.cost.prefill_overhead_ms / 1e3;
  allreduce_fixed_s_ = 0;
  allreduce_per_token_s_ = 0;
  if (n > 1) {
    const double per_layer = 2.0 * c.model.num_layers;  // attention and MLP outputs
    allreduce_fixed_s_ = per_layer * c.parallel.allreduce_latency_us / 1e6;
    allreduce_per_token_s_ = per_layer * 2.0 * (n - 1) / n * c.model.hidden_size *
                             c.parallel.activation_bytes / c.parallel.interconnect_bytes_per_s;
  }
  overhead_ = from_s(c.sched.overhead_ms / 1e3 * scale_);
}

double CostModel::allreduce_s(int64_t tokens) const {
  if (allreduce_fixed_s_ == 0 && allreduce_per_token_s_ == 0) return 0;
  return allreduce_fixed_s_ + static_cast<double>(tokens) * allreduce_per_token_s_;
}

Nanos CostModel::prefill(int64_t prompt_tokens, double attention_pairs) const {
  double s =
      prefill_overhead_s_ +
      std::max(weights_read_s_, static_cast<double>(prompt_tokens) * prefill_token_compute_s_) +
      attention_pairs * attention_pair_s_ + allreduce_s(prompt_tokens);
  return from_s(s * scale_);
}

Nanos CostModel::decode_step(int64_t batch_size, int64_t kv_tokens) const {
  return mixed_step(batch_size, kv_tokens, 0, 0);
}

Nanos CostModel::mixed_step(int64_t batch_size, int64_t kv_tokens, int64_t prefill_tokens,
                            double attention_pairs) const {
  const double linear =
      std::max(weights_read_s_, static_cast<double>(batch_size) * per_token_compute_s_ +
                                    static_cast<double>(prefill_tokens) * prefill_token_compute_s_);
  const double attention =
      static_cast<double>(kv_tokens) * kv_read_per_token_s_ + attention_pairs * attention_pair_s_;
  return from_s((step_overhead_s_ + linear + attention + allreduce_s(batch_size + prefill_tokens)) *
                scale_);
}

double prefill_attention_pairs(int64_t start, int64_t tokens) {
  const double s = static_cast<double>(start), p = static_cast<double>(tokens);
  return p * s + p * (p + 1) / 2;
}

}  // namespace sb::sim
