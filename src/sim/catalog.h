#pragma once
// The simulator's catalog: GPUs x models x precisions x engine behaviours, as plain data
// tables, and the SimConfig of one choice (`servebench sim --gpu H100 --model llama-3.1-8b
// --engine vllm --tp 1 --dtype fp8`, `prof --sim-gpu ...`, providers.yaml `sim: {...}`).
// Every entry names where its numbers come from (docs/simulator.md, "Catalog").
//
// config_of(choice): the SimConfig defaults, then the GPU, model and precision fields, the
// tensor parallelism, the model's context as max_total_tokens, then the engine's behaviour
// (sim/engine_behaviour.h), then the memory fit (memory_fit) and the model id. Names match
// case-insensitively; an unknown name is a usage error listing the known ones; a model that
// does not fit is a usage error showing the arithmetic.
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

struct GpuSpec {
  std::string name;                  // catalog name: "H100"
  std::string full_name;             // as nvidia-smi names it (SimConfig::gpu.name, DCGM modelName)
  double memory_bytes = 0;           // nvidia-smi total
  double bandwidth_bytes_per_s = 0;  // peak memory bandwidth
  double fp16_flops = 0;             // dense FP16/BF16 tensor-core peak
  double fp8_flops = 0;              // dense FP8 tensor-core peak; 0: no FP8 tensor cores
  double bandwidth_efficiency = 0;   // default fraction of peak bandwidth decode reaches
  double mfu = 0;                    // default fraction of peak FLOP/s prefill reaches
  std::string interconnect;          // "NVLink 4", "PCIe 4.0 x16"
  double interconnect_bytes_per_s = 0;  // per GPU and direction, for the TP all-reduce
  double allreduce_latency_us = 0;
  double idle_power_w = 0, max_power_w = 0;
  std::string source;
};

struct ModelSpec {
  std::string name;   // catalog name: "llama-3.1-8b"
  std::string hf_id;  // Hugging Face model id, reported by the simulator's APIs
  double params = 0;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int context = 0;  // max_position_embeddings
  std::string source;
  int vocab = 0;  // vocab_size (the input embedding and the untied output head: vocab x hidden)
};

struct PrecisionSpec {
  std::string name;  // "fp16", "bf16", "fp8", "int8", "int4"
  double bytes_per_param = 0;
  double kv_bytes_per_elem = 0;
  bool fp8_compute = false;  // matmuls at the GPU's FP8 rate where it has one
  // Dequantisation overhead of weight-only kernels (fraction of weight-read and matmul time);
  // fp8 on a GPU without FP8 tensor cores runs weight-only too (fp8_dequant_overhead).
  double dequant_overhead = 0;
  double fp8_dequant_overhead = 0;
  std::string source;
};

// The tables, in listing order.
const std::vector<GpuSpec>& catalog_gpus();
const std::vector<ModelSpec>& catalog_models();
const std::vector<PrecisionSpec>& catalog_precisions();
// The engine behaviours config_of accepts (sim::engine_names()).
std::vector<std::string> catalog_engines();

// Case-insensitive look-ups; throw sb::Error(usage) "unknown GPU 'X' (known: A10G, ...)".
const GpuSpec& find_gpu(std::string_view name);
const ModelSpec& find_model(std::string_view name);
const PrecisionSpec& find_precision(std::string_view name);

// One catalog selection. Empty fields take the defaults (the tgi preset's system): A10G,
// llama-2-7b, tgi-1.x, fp16.
struct SimChoice {
  std::string gpu, model, engine, dtype;
  int tp = 1;
};
// The choice with its defaults filled in and names spelled as the catalog spells them.
// Throws sb::Error(usage) for an unknown name.
SimChoice resolved(const SimChoice& choice);
// "vllm-h100-llama-3.1-8b-fp8-tp1": names the simulator in run labels and reports.
std::string label_of(const SimChoice& choice);

// The per-GPU memory arithmetic of a model at a precision over `tp` GPUs.
struct MemoryFit {
  double weights_bytes = 0;          // whole model
  double weights_per_gpu_bytes = 0;  // weights / tp
  double kv_bytes_per_token = 0;     // whole model: 2 x layers x kv_heads x head_dim x bytes
  double kv_bytes_per_token_per_gpu = 0;
  double gpu_memory_bytes = 0, reserve_bytes = 0;
  double free_bytes = 0;  // memory - reserve - weights per GPU (may be negative)
  int64_t kv_capacity_tokens = 0;
  int64_t min_kv_tokens = 0;  // the KV room required: one sequence of this many tokens
  bool fits = false;          // free_bytes > 0 and kv_capacity_tokens >= min_kv_tokens
};
MemoryFit memory_fit(const ModelSpec& m, const GpuSpec& g, const PrecisionSpec& p, int tp,
                     double reserve_bytes, int64_t min_kv_tokens);
// The usage-error text for a fit that fails: the arithmetic and the tp / dtype that would fit.
std::string fit_error(const ModelSpec& m, const GpuSpec& g, const PrecisionSpec& p, int tp,
                      const MemoryFit& fit);

// The simulator config of `choice` (see the top of this file). Throws sb::Error(usage) for an
// unknown name, a tp that does not divide the model's attention heads (or is not 1, 2, 4 or
// 8), or a model that does not fit.
SimConfig config_of(const SimChoice& choice);

// The catalog as text for `servebench sim --list`: every table with its sources.
std::string catalog_listing();

}  // namespace sb::sim
