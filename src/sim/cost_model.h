#pragma once
// The simulator's cost model: how long prefill and a decode step take on the
// configured GPU for the configured model (docs/simulator.md derives it).
//   prefill(T)      = prefill_overhead + max(weights_read, T x prefill_per_token)
//   decode_step(b,K)= step_overhead + max(weights_read + K x kv_read_per_token, b x
//   compute_per_seq)
// where weights_read = weights_bytes / (bandwidth x efficiency) (or decode_step_ms),
// kv_read_per_token = kv_bytes_per_token / (bandwidth x efficiency),
// compute_per_seq = prefill_per_token = 2 x params / (FLOP/s x MFU) (or prefill_ms_per_token).
// Every duration is multiplied by time_scale.
#include <cstdint>

#include "common/clock.h"
#include "sim/config.h"

namespace sb::sim {

class CostModel {
 public:
  explicit CostModel(const SimConfig& c);

  Nanos prefill(int64_t prompt_tokens) const;
  Nanos decode_step(int64_t batch_size, int64_t kv_tokens) const;
  Nanos request_overhead() const { return overhead_; }

  double weights_bytes() const { return weights_bytes_; }
  double kv_bytes_per_token() const { return kv_bytes_per_token_; }
  int64_t kv_capacity_tokens() const { return kv_capacity_tokens_; }
  // Bytes one decode step reads (for the bandwidth gauge).
  double step_bytes(int64_t kv_tokens) const {
    return weights_bytes_ + static_cast<double>(kv_tokens) * kv_bytes_per_token_;
  }

 private:
  double scale_;
  double weights_bytes_;
  double kv_bytes_per_token_;
  int64_t kv_capacity_tokens_;
  double weights_read_s_;
  double kv_read_per_token_s_;
  double per_token_compute_s_;
  double step_overhead_s_;
  double prefill_overhead_s_;
  Nanos overhead_;
};

}  // namespace sb::sim
