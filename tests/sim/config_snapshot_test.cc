// Every preset, engine behaviour and a few catalog choices give the same SimConfig values as
// recorded in config_snapshot_golden.h (written from the flat SimConfig before it was nested
// into parts): the labels are the flat field names, the values print exactly ({} of fmt is
// the shortest round-trip form of a double).
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config_snapshot_golden.h"
#include "sim/catalog.h"
#include "sim/config.h"
#include "sim/engine_behaviour.h"

namespace sb::sim {
namespace {

// One "label.field=value" line per SimConfig field (the server limits have their own tests).
std::string flat_dump(const std::string& label, const SimConfig& c) {
  std::string out;
  const auto put = [&](const char* field, const auto& value) {
    out += fmt::format("{}.{}={}\n", label, field, value);
  };
  put("host", c.server.host);
  put("port", c.server.port);
  put("threads", c.server.threads);
  put("preset", c.server.preset);
  put("time_scale", c.server.time_scale);
  put("seed", c.server.seed);
  put("trace_path", c.server.trace_path);
  put("trace_in_memory", c.server.trace_in_memory);
  put("max_body_bytes", c.server.max_body_bytes);
  put("model_name", c.model.name);
  put("model_params", c.model.params);
  put("embedding_params", c.model.embedding_params);
  put("bytes_per_param", c.model.bytes_per_param);
  put("num_layers", c.model.num_layers);
  put("kv_dim", c.model.kv_dim);
  put("head_dim", c.model.head_dim);
  put("hidden_size", c.model.hidden_size);
  put("kv_bytes_per_elem", c.model.kv_bytes_per_elem);
  put("dtype", c.model.dtype);
  put("dequant_overhead", c.model.dequant_overhead);
  put("gpu_name", c.gpu.name);
  put("gpu_memory_bytes", c.gpu.memory_bytes);
  put("gpu_bandwidth_bytes_per_s", c.gpu.bandwidth_bytes_per_s);
  put("gpu_flops", c.gpu.flops);
  put("bandwidth_efficiency", c.gpu.bandwidth_efficiency);
  put("mfu", c.gpu.mfu);
  put("memory_reserve_bytes", c.gpu.memory_reserve_bytes);
  put("gpu_idle_power_w", c.gpu.idle_power_w);
  put("gpu_max_power_w", c.gpu.max_power_w);
  put("tensor_parallel", c.parallel.tp);
  put("interconnect_bytes_per_s", c.parallel.interconnect_bytes_per_s);
  put("allreduce_latency_us", c.parallel.allreduce_latency_us);
  put("activation_bytes", c.parallel.activation_bytes);
  put("decode_step_ms", c.cost.decode_step_ms);
  put("prefill_ms_per_token", c.cost.prefill_ms_per_token);
  put("step_overhead_ms", c.cost.step_overhead_ms);
  put("prefill_overhead_ms", c.cost.prefill_overhead_ms);
  put("kv_capacity_tokens", c.cost.kv_capacity_tokens);
  put("batching", to_string(c.sched.batching));
  put("max_batch_size", c.sched.max_batch_size);
  put("batch_window_ms", c.sched.batch_window_ms);
  put("kv_full", to_string(c.sched.kv_full));
  put("queue_limit", c.sched.queue_limit);
  put("overhead_ms", c.sched.overhead_ms);
  put("serial_lock", c.sched.serial_lock);
  put("max_input_tokens", c.sched.max_input_tokens);
  put("max_total_tokens", c.sched.max_total_tokens);
  put("prefill_mode", to_string(c.sched.prefill_mode));
  put("kv_allocation", to_string(c.sched.kv_allocation));
  put("kv_block_tokens", c.sched.kv_block_tokens);
  put("waiting_served_ratio", c.sched.waiting_served_ratio);
  put("max_waiting_tokens", c.sched.max_waiting_tokens);
  put("max_batch_prefill_tokens", c.sched.max_batch_prefill_tokens);
  put("max_batch_total_tokens", c.sched.max_batch_total_tokens);
  put("max_num_batched_tokens", c.sched.max_num_batched_tokens);
  put("prefix_caching", c.sched.prefix_caching);
  put("prefix_cache_tokens", c.sched.prefix_cache_tokens);
  put("chars_per_token", c.text.chars_per_token);
  put("chat_tokens_per_message", c.text.chat_tokens_per_message);
  put("default_max_tokens_completions", c.text.default_max_tokens_completions);
  put("eos_probability", c.text.eos_probability);
  for (const FaultRate& f : c.faults) put("fault_rate", fmt::format("{}={}", f.kind, f.rate));
  return out;
}

// Every config the snapshot covers, dumped in one text.
std::string dump_all() {
  std::string out = flat_dump("default", SimConfig{});
  for (const std::string& p : preset_names()) out += flat_dump("preset:" + p, preset_config(p));
  out += flat_dump("preset:fast", preset_config("fast"));
  for (const std::string& e : engine_names()) {
    SimConfig c;
    apply_engine_behaviour(e, c);
    out += flat_dump("engine:" + e, c);
  }
  const std::vector<SimChoice> choices = {
      {},
      {"H100", "llama-3.1-8b", "vllm", "fp8", 1},
      {"A100", "llama-2-70b", "trtllm", "fp16", 4},
      {"L4", "qwen2.5-7b", "tgi-1.x", "int4", 1},
      {"H200", "llama-3.1-70b", "vllm", "bf16", 8},
      {"A10G", "llama-2-7b", "pytorch", "int8", 1},
      {"L40S", "llama-2-13b", "fastapi", "fp8", 2},
  };
  for (const SimChoice& ch : choices) out += flat_dump("catalog:" + label_of(ch), config_of(ch));
  return out;
}

TEST(SimConfigSnapshot, PresetsEnginesAndCatalogChoicesKeepTheirValues) {
  EXPECT_EQ(dump_all(), kSimConfigGolden);
}

}  // namespace
}  // namespace sb::sim
