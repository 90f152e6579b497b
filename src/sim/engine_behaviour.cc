#include "sim/engine_behaviour.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"

namespace sb::sim {
namespace {

// TGI 1.x (text-generation-inference v1.0.3): the router's defaults (launcher/src/main.rs:
// --waiting-served-ratio 1.2, --max-waiting-tokens 20, --max-batch-prefill-tokens 4096,
// --max-batch-total-tokens from the warm-up = the KV capacity, --max-concurrent-requests 128,
// --max-input-length 1024, --max-total-tokens 2048) and its batching loop (router/src/infer.rs,
// router/src/queue.rs): prefill is a forward pass of its own, KV is reserved for prompt +
// max_new_tokens (padded to 16-token blocks), no preemption, no prefix cache. Efficiencies
// calibrated to Hugging Face's Llama-2 SageMaker benchmark (A10G, TGI 1.0.3, Llama-2-7B FP16;
// github.com/philschmid/text-generation-inference-tests, results/sagemaker.csv): decode at 73.5%
// of the memory bandwidth (30.6 ms per step of 13.5 GB of weights at 600 GB/s, the benchmark's
// fastest ms/token at one user), prefill at 70% of peak FLOP/s (Vidur's measured 70-75%).
void tgi_1x(SimConfig& c) {
  c.sched.batching = BatchPolicy::continuous;
  c.sched.prefill_mode = PrefillMode::separate;
  c.sched.kv_allocation = KvAllocation::reserve;
  c.sched.kv_block_tokens = 16;
  c.sched.waiting_served_ratio = 1.2;
  c.sched.max_waiting_tokens = 20;
  c.sched.max_batch_prefill_tokens = 4096;
  c.sched.max_batch_total_tokens = 0;  // the warm-up's figure: the KV capacity
  c.sched.max_batch_size = 32;         // no such limit in TGI 1.0.3 flash models; the study's cap
  c.sched.queue_limit = 96;            // --max-concurrent-requests 128 less a full batch of 32
  c.sched.prefix_caching = false;      // TGI 2.x added it; 1.x recomputes every prompt
  c.sched.max_input_tokens = 1024;
  c.sched.max_total_tokens = 2048;
  c.gpu.bandwidth_efficiency = 0.735;
  c.gpu.mfu = 0.70;
  c.cost.step_overhead_ms =
      0.0;  // CUDA graphs off in 1.0.3, but launches hide under the weight read
  c.cost.prefill_overhead_ms = 4.0;  // the Python shard re-tokenises and builds the batch
  c.sched.overhead_ms = 0.5;         // Rust router: validation (tokenizer) before the queue
  c.sched.serial_lock = false;
}

// vLLM (V1 engine): chunked prefill with max_num_batched_tokens 2048 per step and
// --max-num-seqs 256, `vllm serve`'s defaults on GPUs under 70 GiB and on the A100
// (vllm/engine/arg_utils.py get_batch_defaults; on H100/H200-class GPUs `vllm serve` takes
// 8192 and 1024: the catalog keeps 2048/256 there too, docs/simulator.md says why), paged KV in
// 16-token blocks (--block-size 16), preemption by recompute, automatic prefix caching on.
// CPU overhead per step: the scheduler's share of a token in vLLM's v0.6.0 blog post (29% of
// 13 ms on H100 before the fix; 0.6.0's multi-step and async output processing hide most of it:
// 1 ms kept).
void vllm(SimConfig& c) {
  c.sched.batching = BatchPolicy::continuous;
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.kv_allocation = KvAllocation::paged;
  c.sched.kv_block_tokens = 16;
  c.sched.max_num_batched_tokens = 2048;
  c.sched.max_batch_size = 256;
  c.sched.queue_limit = 0;  // vLLM queues without bound
  c.sched.prefix_caching = true;
  c.sched.prefix_cache_tokens = 0;
  c.gpu.bandwidth_efficiency = 0.8;
  c.gpu.mfu = 0.7;
  c.cost.step_overhead_ms = 1.0;
  c.cost.prefill_overhead_ms = 0;
  c.sched.overhead_ms = 1.0;  // OpenAI server: FastAPI routing, tokenisation (async, overlapped)
  c.sched.serial_lock = false;
}

// TensorRT-LLM (trtllm-serve, inflight batching): its --max_num_tokens 8192 tokens per step and
// --max_batch_size 256 defaults (trtllm-serve documentation), chunked context, paged KV with
// block reuse in 32-token blocks (tokens_per_block: an assumption, not checked against the
// source); C++ runtime with CUDA graphs: the smallest per-step overhead (0.3 ms, assumed).
void trtllm(SimConfig& c) {
  c.sched.batching = BatchPolicy::continuous;
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.kv_allocation = KvAllocation::paged;
  c.sched.kv_block_tokens = 32;
  c.sched.max_num_batched_tokens = 8192;
  c.sched.max_batch_size = 256;
  c.sched.queue_limit = 0;
  c.sched.prefix_caching = true;
  c.sched.prefix_cache_tokens = 0;
  c.gpu.bandwidth_efficiency = 0.82;
  c.gpu.mfu = 0.75;
  c.cost.step_overhead_ms = 0.3;
  c.cost.prefill_overhead_ms = 0;
  c.sched.overhead_ms = 0.5;
  c.sched.serial_lock = false;
}

// The Python wrappers: Hugging Face transformers generate() per request, eager PyTorch, one
// request at a time (--batching static --max-batch-size N: the "manual batching" variant).
// Their CPU costs come from vLLM's v0.6.0 blog post (H100, Llama-3-8B, one token every 13 ms:
// API server 33% = 4.3 ms, scheduling/Python loop 29% = 3.8 ms, GPU 38%); docs/simulator.md
// gives the arithmetic.
void python_common(SimConfig& c) {
  c.sched.batching = BatchPolicy::none;
  c.sched.prefill_mode = PrefillMode::fused;
  c.sched.kv_allocation = KvAllocation::reserve;
  c.sched.max_batch_size = 1;
  c.sched.queue_limit = 0;  // the HTTP server just queues
  c.sched.prefix_caching =
      false;  // the context limits stay the model's (transformers has no other)
  c.gpu.bandwidth_efficiency = 0.735;  // the same kernels' weight read as TGI's on this GPU
  c.gpu.mfu = 0.6;                     // eager attention, no flash kernels in prefill
}

// Native PyTorch server: the generate() loop's Python per step (3.8 ms, R5's "scheduling"
// share), a thin HTTP layer off the model thread (1 ms, overlapped with generation).
void pytorch(SimConfig& c) {
  python_common(c);
  c.cost.step_overhead_ms = 3.8;
  c.cost.prefill_overhead_ms = 2.0;  // tokenizer + generate() setup
  c.sched.overhead_ms = 1.0;
  c.sched.serial_lock = false;
}

// FastAPI/uvicorn, one worker whose generate() blocks the event loop: the API server's work
// (R5's 33%: 4.3 ms a token, detokenising and writing the response) runs in the same Python
// thread as the loop, so it adds to every step; the per-request work (routing, pydantic,
// JSON, tokenising: 10 ms) runs under the same lock and never overlaps another generation.
void fastapi(SimConfig& c) {
  python_common(c);
  c.cost.step_overhead_ms = 3.8 + 4.3;
  c.cost.prefill_overhead_ms = 2.0;
  c.sched.overhead_ms = 10.0;
  c.sched.serial_lock = true;
}

struct Behaviour {
  const char* name;
  void (*apply)(SimConfig&);
};

constexpr Behaviour kBehaviours[] = {
    {"tgi-1.x", tgi_1x},  {"vllm", vllm},       {"trtllm", trtllm},
    {"pytorch", pytorch}, {"fastapi", fastapi},
};

}  // namespace

void apply_engine_behaviour(std::string_view engine, SimConfig& c) {
  for (const Behaviour& b : kBehaviours)
    if (engine == b.name) return b.apply(c);
  throw usage_error(
      fmt::format("engine: unknown engine '{}' (use {})", engine, fmt::join(engine_names(), ", ")));
}

std::vector<std::string> engine_names() {
  std::vector<std::string> out;
  for (const Behaviour& b : kBehaviours) out.emplace_back(b.name);
  return out;
}

}  // namespace sb::sim
