#pragma once
// The simulator's cost model: how long prefill and a decode step take on the configured
// GPU(s) for the configured model and precision (docs/simulator.md derives it). With N =
// parallel.tp GPUs (Megatron-style: each holds 1/N of the weights and of the KV heads,
// and every layer ends its attention and its MLP with an all-reduce):
//
//   weights_read      = (params - embedding) x bytes_per_param / N / (bandwidth x efficiency)
//                       x (1 + dequant)  (or decode_step_ms)
//   kv_read_per_token = kv_bytes_per_token_per_gpu / (bandwidth x efficiency)
//   decode_compute    = 2 x (params - embedding) / N / (gpu_flops x mfu) x (1 + dequant)
//   prompt_compute    = 2 x (params - 2 embedding) / N / (gpu_flops x mfu) x (1 + dequant)
//                       (or prefill_ms_per_token for both, attention then included: 0)
//   attention(pairs)  = pairs x 4 x layers x hidden / N / (gpu_flops x mfu), pairs = the
//                       (query, key) pairs of the prompt tokens a pass computes (causal: a
//                       token at position i attends to i + 1 keys)
//   allreduce(n)      = 2 x layers x (latency + 2 (N-1)/N x n x hidden x act_bytes / link)
//                       for a forward pass over n tokens; 0 when N = 1
//   prefill(T)        = prefill_overhead + max(weights_read, T x prompt_compute)
//                       + attention(T's pairs) + allreduce(T)
//   mixed_step(b, K, P) (a step of b decode tokens and P prompt tokens, chunked prefill)
//                     = step_overhead + max(weights_read, b x decode_compute
//                                                      + P x prompt_compute)
//                       + K x kv_read_per_token + attention(P's pairs) + allreduce(b + P)
//   decode_step(b, K) = mixed_step(b, K, 0)
//
// The linear layers (the weights' matmuls) run at the larger of their weight read and their
// compute; attention runs after them in every layer and does not overlap them: it reads the
// resident KV (decode) and computes the prompt's pairs (prefill). `embedding` is one vocab x
// hidden table: the input embedding is held but only its looked-up rows are read; the output
// head (untied) is multiplied per decode token and for a prompt's last token only (ignored).
// kv_bytes_per_token_per_gpu = 2 (K and V) x layers x ceil(kv_heads / N) x head_dim x
// kv_bytes (kv_heads = kv_dim / head_dim; fewer KV heads than GPUs are replicated, as vLLM
// does), `dequant` = dequant_overhead (weight-only int8/int4 kernels), gpu_flops the rate of
// the precision's matmuls (FP8 tensor cores for fp8 where the GPU has them), `link` the
// interconnect bandwidth per GPU and direction (a ring all-reduce moves 2 (N-1)/N of the
// payload over each link). The all-reduce does not overlap the matmuls.
//
// Every quantity is per GPU (what one of the N GPUs holds and reads); every duration is
// multiplied by time_scale. N = 1 and fp16 give the single-GPU formulas exactly.
#include <cstdint>

#include "common/clock.h"
#include "sim/config.h"

namespace sb::sim {

class CostModel {
 public:
  explicit CostModel(const SimConfig& c);

  // `attention_pairs`: the prompt tokens' (query, key) pairs (prefill_attention_pairs).
  Nanos prefill(int64_t prompt_tokens, double attention_pairs) const;
  Nanos decode_step(int64_t batch_size, int64_t kv_tokens) const;
  // One step that decodes `batch_size` sequences (resident KV `kv_tokens`) and prefills
  // `prefill_tokens` prompt tokens in the same forward pass (vLLM chunked prefill).
  Nanos mixed_step(int64_t batch_size, int64_t kv_tokens, int64_t prefill_tokens,
                   double attention_pairs) const;
  // The all-reduce time of one forward pass over `tokens` tokens (0 with one GPU), unscaled
  // seconds x time_scale.
  Nanos allreduce(int64_t tokens) const { return from_s(allreduce_s(tokens) * scale_); }
  Nanos request_overhead() const { return overhead_; }

  // Per GPU: the weights it holds (model weights / N) and the KV bytes one token takes on it.
  double weights_bytes() const { return weights_bytes_; }
  double kv_bytes_per_token() const { return kv_bytes_per_token_; }
  // Tokens of KV the engine can hold (each token's KV spread over the N GPUs).
  int64_t kv_capacity_tokens() const { return kv_capacity_tokens_; }
  // Bytes one decode step reads on one GPU (for the bandwidth gauge).
  double step_bytes(int64_t kv_tokens) const {
    return weights_bytes_ + static_cast<double>(kv_tokens) * kv_bytes_per_token_;
  }

 private:
  double allreduce_s(int64_t tokens) const;

  double scale_;
  double weights_bytes_;
  double kv_bytes_per_token_;
  int64_t kv_capacity_tokens_;
  double weights_read_s_;
  double kv_read_per_token_s_;
  double per_token_compute_s_;      // one decode token
  double prefill_token_compute_s_;  // one prompt token
  double attention_pair_s_;         // one (query, key) pair of prefill attention
  double step_overhead_s_;
  double prefill_overhead_s_;
  double allreduce_fixed_s_;      // 2 x layers x latency (0 with one GPU)
  double allreduce_per_token_s_;  // 2 x layers x 2 (N-1)/N x hidden x act_bytes / link
  Nanos overhead_;
};

// The causal attention pairs of `tokens` prompt tokens at positions start .. start+tokens-1
// (each attends to every earlier position and itself): tokens x start + tokens (tokens+1) / 2.
double prefill_attention_pairs(int64_t start, int64_t tokens);

// Per-GPU KV bytes of one token: 2 x layers x ceil(kv_heads / N) x head_dim x kv_bytes.
double kv_bytes_per_token_per_gpu(const SimConfig& c);

}  // namespace sb::sim
