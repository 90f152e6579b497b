#include "sim/params.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::sim {
namespace {

double to_double(const std::string& field, const std::string& v) {
  size_t pos = 0;
  double d = 0;
  try {
    d = std::stod(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != v.size())
    throw usage_error(fmt::format("sim: {} '{}' is not a number", field, v));
  return d;
}

// An integer of type T. Plain digits are read exactly (all 64 bits of a seed); another
// number form ("1e6") must be whole. Outside T's range is an error naming the range.
template <class T>
T to_int(const std::string& field, const std::string& v) {
  using Limits = std::numeric_limits<T>;
  const auto out_of_range = [&] {
    return usage_error(
        fmt::format("sim: {} '{}' is out of range {}..{}", field, v, Limits::min(), Limits::max()));
  };
  T exact{};
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, exact);
  if (ptr == end && ec == std::errc()) return exact;
  if (ptr == end && ec == std::errc::result_out_of_range) throw out_of_range();
  const double d = to_double(field, v);
  if (d != std::floor(d))
    throw usage_error(fmt::format("sim: {} '{}' must be an integer", field, v));
  // [min, 2^digits): both bounds are exact doubles.
  if (!(d >= static_cast<double>(Limits::min()) && d < std::ldexp(1.0, Limits::digits)))
    throw out_of_range();
  return static_cast<T>(d);
}

bool to_bool(const std::string& field, const std::string& v) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw usage_error(fmt::format("sim: {} '{}' must be true or false", field, v));
}

// One parameter and its setter; `field` names the flag or file key in messages.
struct Param {
  ParamDoc doc;
  void (*set)(SimConfig&, const std::string& field, const std::string& value);
};

#define SB_NUM(field_) \
  [](SimConfig& c, const std::string& f, const std::string& v) { c.field_ = to_double(f, v); }
#define SB_INT(field_)                                           \
  [](SimConfig& c, const std::string& f, const std::string& v) { \
    c.field_ = to_int<decltype(c.field_)>(f, v);                 \
  }
#define SB_STR(field_) [](SimConfig& c, const std::string&, const std::string& v) { c.field_ = v; }

const Param kParams[] = {
    {{"host", "address to listen on"}, SB_STR(server.host)},
    {{"port", "port to listen on, 0..65535 (0: ephemeral)"}, SB_INT(server.port)},
    {{"threads", "network threads (default: half the cores, 1..8)"}, SB_INT(server.threads)},
    {{"time-scale", "multiply every simulated duration (0.1: 10x faster)"},
     SB_NUM(server.time_scale)},
    {{"seed", "seed of output text and fault rates (0..2^64-1)"}, SB_INT(server.seed)},
    {{"trace", "write a JSONL ground-truth line per request to FILE"}, SB_STR(server.trace_path)},
    {{"max-body-bytes", "largest accepted request body (413 beyond)"},
     SB_INT(server.max_body_bytes)},
    {{"model-name", "model id reported by the APIs"}, SB_STR(model.name)},
    {{"model-params", "model parameter count"}, SB_NUM(model.params)},
    {{"embedding-params", "parameters of one vocab x hidden table (not read per token)"},
     SB_NUM(model.embedding_params)},
    {{"bytes-per-param", "bytes per weight (2: FP16, 0.5: 4-bit)"}, SB_NUM(model.bytes_per_param)},
    {{"num-layers", "transformer layers"}, SB_INT(model.num_layers)},
    {{"kv-dim", "hidden size x KV heads / heads"}, SB_INT(model.kv_dim)},
    {{"gpu-memory-bytes", "GPU memory"}, SB_NUM(gpu.memory_bytes)},
    {{"gpu-bandwidth", "GPU memory bandwidth, bytes/s"}, SB_NUM(gpu.bandwidth_bytes_per_s)},
    {{"gpu-flops", "GPU peak FLOP/s"}, SB_NUM(gpu.flops)},
    {{"bandwidth-efficiency", "fraction of peak bandwidth a decode step reaches"},
     SB_NUM(gpu.bandwidth_efficiency)},
    {{"mfu", "fraction of peak FLOP/s prefill reaches"}, SB_NUM(gpu.mfu)},
    {{"memory-reserve-bytes", "GPU memory not available for KV"}, SB_NUM(gpu.memory_reserve_bytes)},
    {{"decode-step-ms", "weight-read time of a decode step (0: derived)"},
     SB_NUM(cost.decode_step_ms)},
    {{"prefill-ms-per-token", "prefill time per prompt token (0: derived)"},
     SB_NUM(cost.prefill_ms_per_token)},
    {{"step-overhead-ms", "fixed cost of every decode step"}, SB_NUM(cost.step_overhead_ms)},
    {{"prefill-overhead-ms", "fixed cost of every prefill"}, SB_NUM(cost.prefill_overhead_ms)},
    {{"kv-capacity-tokens", "KV-cache capacity in tokens (0: derived from memory)"},
     SB_INT(cost.kv_capacity_tokens)},
    {{"batching", "none | static | continuous"},
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.sched.batching = batch_policy_from_string(v);
     }},
    {{"max-batch-size", "largest running batch"}, SB_INT(sched.max_batch_size)},
    {{"batch-window-ms", "static batching: longest wait for a full batch"},
     SB_NUM(sched.batch_window_ms)},
    {{"kv-full", "queue | reject: a request whose KV does not fit now"},
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.sched.kv_full = kv_full_action_from_string(v);
     }},
    {{"queue-limit", "most requests waiting (0: unlimited); beyond: 429 / overloaded"},
     SB_INT(sched.queue_limit)},
    {{"overhead-ms", "per-request HTTP/framework overhead"}, SB_NUM(sched.overhead_ms)},
    {{"serial-lock", "true: overhead and engine share one lock (single Python worker)"},
     [](SimConfig& c, const std::string& f, const std::string& v) {
       c.sched.serial_lock = to_bool(f, v);
     }},
    {{"max-input-tokens", "longest prompt (422 / 400 beyond)"}, SB_INT(sched.max_input_tokens)},
    {{"max-total-tokens", "longest prompt + output"}, SB_INT(sched.max_total_tokens)},
    {{"prefill-mode", "fused | separate (TGI 1.x) | chunked (vLLM): prefill vs decode steps"},
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.sched.prefill_mode = prefill_mode_from_string(v);
     }},
    {{"kv-allocation", "reserve (prompt + max_new at admission) | paged (blocks, preemption)"},
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.sched.kv_allocation = kv_allocation_from_string(v);
     }},
    {{"kv-block-tokens", "KV block size in tokens (vLLM --block-size)"},
     SB_INT(sched.kv_block_tokens)},
    {{"waiting-served-ratio", "separate: prefill when waiting >= running x this (TGI)"},
     SB_NUM(sched.waiting_served_ratio)},
    {{"max-waiting-tokens", "separate: prefill anyway after this many decode steps (TGI)"},
     SB_INT(sched.max_waiting_tokens)},
    {{"max-batch-prefill-tokens", "separate: prompt tokens per prefill (TGI; 0: no limit)"},
     SB_INT(sched.max_batch_prefill_tokens)},
    {{"max-batch-total-tokens", "separate: KV token budget of the batch (TGI; 0: KV capacity)"},
     SB_INT(sched.max_batch_total_tokens)},
    {{"max-num-batched-tokens", "chunked: tokens per step, decode + prompt chunks (vLLM)"},
     SB_INT(sched.max_num_batched_tokens)},
    {{"max-num-seqs", "vLLM's name of max-batch-size"}, SB_INT(sched.max_batch_size)},
    {{"prefix-caching", "true: cached prompt blocks skip their prefill"},
     [](SimConfig& c, const std::string& f, const std::string& v) {
       c.sched.prefix_caching = to_bool(f, v);
     }},
    {{"prefix-cache-tokens", "prefix cache size in tokens (0: the KV capacity)"},
     SB_INT(sched.prefix_cache_tokens)},
    {{"chars-per-token", "prompt tokens = ceil(bytes / this)"}, SB_INT(text.chars_per_token)},
    {{"eos-probability", "per-token chance of stopping early unless ignore_eos"},
     SB_NUM(text.eos_probability)},
    {{"reasoning-length",
      "reasoning tokens first in each chat, responses and messages reply (part of max_tokens)"},
     SB_INT(text.reasoning_length)},
    {{"image-tokens", "tokens one image input costs the encoder (/v1/embeddings)"},
     SB_INT(text.image_tokens)},
    {{"fault-rate", "global fault rates, e.g. 503=0.01,reset=0.001"},
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.faults = parse_fault_rates(v);
     }},
    // --- model shape, precision and tensor parallelism (src/sim/cost_model.h) ---
    {{"hidden-size", "model hidden size (the all-reduce payload per token)"},
     SB_INT(model.hidden_size)},
    {{"head-dim", "attention head size (KV heads = kv-dim / head-dim)"}, SB_INT(model.head_dim)},
    {{"kv-bytes-per-elem", "bytes per KV-cache element (2: fp16, 1: fp8)"},
     SB_NUM(model.kv_bytes_per_elem)},
    {{"dequant-overhead", "weight-only quantisation: fraction added to weight reads and matmuls"},
     SB_NUM(model.dequant_overhead)},
    {{"tensor-parallel", "GPUs the weights and KV heads are split over (--tp checks the catalog)"},
     SB_INT(parallel.tp)},
    {{"interconnect-bandwidth", "TP all-reduce link, bytes/s per GPU and direction"},
     SB_NUM(parallel.interconnect_bytes_per_s)},
    {{"allreduce-latency-us", "fixed cost of one TP all-reduce"},
     SB_NUM(parallel.allreduce_latency_us)},
};

#undef SB_NUM
#undef SB_INT
#undef SB_STR

const Param* find_param(std::string_view k) {
  std::string key(k);
  for (auto& ch : key)
    if (ch == '_') ch = '-';
  for (const Param& p : kParams)
    if (key == p.doc.name) return &p;
  return nullptr;
}

}  // namespace

const std::vector<ParamDoc>& param_docs() {
  static const std::vector<ParamDoc> docs = [] {
    std::vector<ParamDoc> v;
    for (const Param& p : kParams) v.push_back(p.doc);
    return v;
  }();
  return docs;
}

std::string param_name(std::string_view key) {
  const Param* p = find_param(key);
  return p ? p->doc.name : "";
}

bool set_param(SimConfig& c, std::string_view key, const std::string& value,
               const std::string& field) {
  const Param* p = find_param(key);
  if (!p) return false;
  p->set(c, field, value);
  return true;
}

}  // namespace sb::sim
