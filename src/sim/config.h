#pragma once
// SimConfig: every parameter of the simulated inference server (servebench sim),
// as one plain struct, defaulted here, filled by a preset and then overridden by
// flags or YAML. docs/simulator.md derives every preset number.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/server_limits.h"

namespace sb::sim {

// none: one request at a time; static: batches of up to max_batch_size formed when
// that many wait or batch_window_ms after the oldest arrived, run to completion;
// continuous: requests join and leave the batch at every decode step.
enum class BatchPolicy { none, static_batch, continuous };
// What to do with a request whose KV reservation does not fit right now:
// queue (wait for KV to free, like TGI/vLLM) or reject (503 / TGI overloaded).
enum class KvFullAction { queue, reject };
// How prompts are processed relative to decode steps (docs/simulator.md, "Scheduling"):
// fused: the step that admits requests prefills them and decodes the batch in one pass
//   (the first token comes at that step's end);
// separate: TGI 1.x, prefill is its own forward pass between decode steps, the running batch
//   gets no token during it, the new requests get their first token at its end; admission
//   follows TGI's router rule (waiting_served_ratio, max_waiting_tokens, token budgets);
// chunked: vLLM chunked prefill, each step has a token budget (max_num_batched_tokens):
//   one token per decoding sequence first, then prompt chunks fill the rest.
enum class PrefillMode { fused, separate, chunked };
// KV memory: reserve (prompt + max_new tokens reserved at admission, never preempted) or
// paged (blocks of kv_block_tokens allocated as tokens grow; when none is free the most
// recently admitted request is preempted by recompute, vLLM's default).
enum class KvAllocation { reserve, paged };

std::string_view to_string(BatchPolicy p);
BatchPolicy batch_policy_from_string(std::string_view s);  // throws sb::Error(usage)
std::string_view to_string(KvFullAction a);
KvFullAction kv_full_action_from_string(std::string_view s);  // throws sb::Error(usage)
std::string_view to_string(PrefillMode m);
PrefillMode prefill_mode_from_string(std::string_view s);  // throws sb::Error(usage)
std::string_view to_string(KvAllocation a);
KvAllocation kv_allocation_from_string(std::string_view s);  // throws sb::Error(usage)

// A global fault rate: kind is an HTTP status ("503", "429", "500", "408", "422")
// or "reset" (RST mid-stream), "disconnect" (FIN mid-stream), "stall", "malformed".
struct FaultRate {
  std::string kind;
  double rate = 0;  // probability per request, in [0, 1]

  bool operator==(const FaultRate&) const = default;
};
// Parses "503=0.01,reset=0.001". Throws sb::Error(usage) naming the bad item.
std::vector<FaultRate> parse_fault_rates(std::string_view spec);

// The parts of SimConfig. Each holds its defaults (Llama-2-7B FP16 on an A10G behind TGI's
// HTTP layer) and has its own validate() below, which throws sb::Error(usage) naming the
// flag of a bad value (`--max-batch-size 0 must be >= 1`); sim/params.h sets every
// overridable field by that flag's name, from flags and from preset files alike.

// The HTTP server and the run around it.
struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: an ephemeral port
  int threads = 1;    // network threads (the engine has its own thread)
  std::string preset = "tgi";
  double time_scale = 1.0;  // multiplies every simulated duration (not fault delays)
  uint64_t seed = 42;
  std::string trace_path;               // JSONL ground truth per request; empty: none
  bool trace_in_memory = true;          // keep records for Server::trace() (off for long CLI runs)
  uint64_t max_body_bytes = 2'000'000;  // larger bodies get 413 (TGI's payload limit)

  bool operator==(const ServerOptions&) const = default;
};

// The model (Llama-2-7B FP16); src/sim/catalog.h fills these for a catalog choice.
struct ModelShape {
  std::string name = "meta-llama/Llama-2-7b-chat-hf";  // the model id the APIs report
  double params = 6.74e9;
  // Parameters of one vocabulary x hidden table (Llama-2-7B: 32000 x 4096). The input
  // embedding is such a table: held in memory but neither read whole nor multiplied per token.
  // The output head (untied in every catalog model) is another: a decode token multiplies it,
  // a prompt only at its last token. 0: every parameter is read and multiplied per token.
  double embedding_params = 131072000;
  double bytes_per_param = 2.0;  // FP16 (fp8: 1, int8: 1, int4: ~0.52 with group scales)
  int num_layers = 32;
  int kv_dim = 4096;       // hidden size x (KV heads / attention heads) = KV heads x head_dim
  int head_dim = 128;      // kv_dim / head_dim = KV heads, split over the tensor-parallel GPUs
  int hidden_size = 4096;  // the all-reduce payload per token is hidden_size x activation bytes
  double kv_bytes_per_elem = 2.0;  // fp16 KV cache (1: fp8 KV)
  std::string dtype = "fp16";      // weight precision label (catalog: fp16, fp8, int8, int4)
  // Weight-only quantisation (int8/int4 GPTQ/AWQ, fp8 without FP8 tensor cores): fraction added
  // to the weight-read time and to the matmul compute for dequantising weights. 0: none.
  double dequant_overhead = 0;

  bool operator==(const ModelShape&) const = default;
};

// The GPU (A10G 24 GB) and what the engine's kernels reach on it. (The catalog's per-GPU
// table is sim::GpuSpec; config_of copies one into these figures.)
struct GpuFigures {
  std::string name = "NVIDIA A10G";
  double memory_bytes = 23028.0 * 1048576.0;  // nvidia-smi total: 23028 MiB
  double bandwidth_bytes_per_s = 600e9;
  double flops = 70e12;               // peak FLOP/s of the matmuls at the model's dtype (A10G FP16)
  double bandwidth_efficiency = 0.8;  // fraction of peak bandwidth a decode step achieves
  double mfu = 0.5;                   // fraction of peak FLOP/s prefill achieves
  double memory_reserve_bytes = 2e9;  // CUDA context + activations, not available for KV
  double idle_power_w = 60;
  double max_power_w = 300;

  bool operator==(const GpuFigures&) const = default;
};

// Tensor parallelism (Megatron-style: weights and KV heads split over the GPUs).
struct Parallelism {
  int tp = 1;                              // GPUs per model replica; 1: no all-reduce
  double interconnect_bytes_per_s = 32e9;  // per GPU and direction (PCIe 4.0 x16; NVLink)
  double allreduce_latency_us = 8;         // fixed cost of one all-reduce
  double activation_bytes = 2;             // bytes per all-reduced element (bf16/fp16)

  bool operator==(const Parallelism&) const = default;
};

// Cost-model overrides and fixed costs (0: derived from the model, GPU and parallelism).
struct CostOverrides {
  double decode_step_ms = 0;        // weight-read time of one decode step
  double prefill_ms_per_token = 0;  // prefill compute per prompt token
  double step_overhead_ms = 1.0;    // fixed per-step cost (kernel launches, sampling, Python)
  double prefill_overhead_ms = 0;   // fixed per-prefill cost
  int64_t kv_capacity_tokens = 0;   // 0: (memory - weights - reserve) / KV bytes per token

  bool operator==(const CostOverrides&) const = default;
};

// Scheduling policy and limits: batching, admission, prefill, KV memory, context limits.
struct SchedulingPolicy {
  BatchPolicy batching = BatchPolicy::continuous;
  int max_batch_size = 32;
  double batch_window_ms = 50;  // static batching: wait at most this long for a full batch
  KvFullAction kv_full = KvFullAction::queue;
  int queue_limit = 96;         // max requests waiting for admission; 0: unlimited
  double overhead_ms = 0.5;     // per-request HTTP/framework overhead before the queue
  bool serial_lock = false;     // overhead and engine steps share one lock (Python GIL)
  int max_input_tokens = 1024;  // TGI --max-input-length / prompt limit
  int max_total_tokens =
      2048;  // prompt + new tokens limit (TGI --max-total-tokens, vLLM max_model_len)
  // How prompts share the GPU with decode steps (PrefillMode above) and KV memory.
  PrefillMode prefill_mode = PrefillMode::fused;
  KvAllocation kv_allocation = KvAllocation::reserve;
  int kv_block_tokens = 16;  // paged KV block size (vLLM --block-size); TGI pads to 16 too
  // separate (TGI 1.x router, router/src/infer.rs + queue.rs): before each decode step the
  // router prefills waiting requests only if at least floor(running x waiting_served_ratio)
  // wait, or max_waiting_tokens decode steps passed since the last prefill (an idle engine
  // prefills at once). A prefill takes requests in FIFO order while their prompt tokens
  // (padded to 16) fit max_batch_prefill_tokens and prompt + max_new (padded) fit what
  // max_batch_total_tokens leaves beside the running batch.
  double waiting_served_ratio = 1.2;     // TGI --waiting-served-ratio
  int max_waiting_tokens = 20;           // TGI --max-waiting-tokens
  int64_t max_batch_prefill_tokens = 0;  // TGI --max-batch-prefill-tokens; 0: no limit
  int64_t max_batch_total_tokens = 0;    // TGI --max-batch-total-tokens; 0: the KV capacity
  // chunked (vLLM): tokens one step processes (decode tokens + prompt chunks); the number of
  // sequences is max_batch_size (vLLM --max-num-seqs).
  int64_t max_num_batched_tokens = 2048;  // vLLM --max-num-batched-tokens
  // Prefix caching: a request whose leading prompt blocks were prefilled before (and are still
  // cached) skips their prefill. The cache holds prefix_cache_tokens (0: the KV capacity),
  // least recently used blocks evicted first.
  bool prefix_caching = false;
  int64_t prefix_cache_tokens = 0;

  bool operator==(const SchedulingPolicy&) const = default;
};

// How text becomes tokens and when generation stops.
struct TextOptions {
  int chars_per_token = 4;                  // prompt tokens = ceil(bytes / chars_per_token)
  int chat_tokens_per_message = 0;          // template tokens added per chat message
  int default_max_tokens_completions = 16;  // OpenAI completions default max_tokens
  double eos_probability = 0;  // per-token chance of EOS (after the first) unless ignore_eos
  // Reasoning models (docs/simulator.md): the first reasoning_length generated tokens of each
  // request are reasoning, streamed as chat delta.reasoning_content, Responses
  // response.reasoning_text.delta, Anthropic thinking_delta; the usage counts them. They are
  // part of the output length asked for (OpenAI's max_completion_tokens) and ordinary decode
  // tokens for the cost model. TGI, completions and llama.cpp responses have no reasoning field
  // and stream every token as text. 0: no reasoning.
  int64_t reasoning_length = 0;
  // Tokens one image input costs an encoder (/v1/embeddings {"image": URL}): CLIP ViT-L/14 at
  // 224 px reads (224 / 14)^2 = 256 patches + the CLS token.
  int64_t image_tokens = 257;

  bool operator==(const TextOptions&) const = default;
};

// Every parameter of the simulated server, in its parts.
struct SimConfig {
  ServerOptions server;
  ModelShape model;
  GpuFigures gpu;
  Parallelism parallel;
  CostOverrides cost;
  SchedulingPolicy sched;
  TextOptions text;
  std::vector<FaultRate> faults;  // --fault-rate 503=0.01,reset=0.001 (seeded by server.seed)
  SimServerLimits limits;  // idle/read timeouts, connection cap, fault headers (server_limits.h)
};

// Preset by name: "pytorch", "fastapi", "tgi", "instant" (tests: 1 ms steps, no limits).
// Throws sb::Error(usage) for an unknown name.
SimConfig preset_config(std::string_view name);
// The preset names, for help text.
std::vector<std::string> preset_names();

// Range checks, one per part; each throws sb::Error(usage) naming the flag of the bad value.
// validate(SimConfig) checks every part (SimServerLimits: server_limits.h) and the rules that
// span parts (the batch-size / token-budget and context-limit ones).
void validate(const ServerOptions& s);
void validate(const ModelShape& m);
void validate(const GpuFigures& g);
void validate(const Parallelism& p);
void validate(const CostOverrides& c);
void validate(const SchedulingPolicy& s);
void validate(const TextOptions& t);
void validate(const FaultRate& f);
void validate(const SimConfig& c);

}  // namespace sb::sim
