#include "sim/config.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/engine_behaviour.h"

namespace sb::sim {

std::string_view to_string(BatchPolicy p) {
  switch (p) {
    case BatchPolicy::none:
      return "none";
    case BatchPolicy::static_batch:
      return "static";
    case BatchPolicy::continuous:
      return "continuous";
  }
  return "?";
}

BatchPolicy batch_policy_from_string(std::string_view s) {
  if (s == "none") return BatchPolicy::none;
  if (s == "static") return BatchPolicy::static_batch;
  if (s == "continuous") return BatchPolicy::continuous;
  throw usage_error(
      fmt::format("batching: unknown policy '{}' (use none, static or continuous)", s));
}

std::string_view to_string(KvFullAction a) {
  return a == KvFullAction::queue ? "queue" : "reject";
}

KvFullAction kv_full_action_from_string(std::string_view s) {
  if (s == "queue") return KvFullAction::queue;
  if (s == "reject") return KvFullAction::reject;
  throw usage_error(fmt::format("kv-full: unknown action '{}' (use queue or reject)", s));
}

std::string_view to_string(PrefillMode m) {
  switch (m) {
    case PrefillMode::fused:
      return "fused";
    case PrefillMode::separate:
      return "separate";
    case PrefillMode::chunked:
      return "chunked";
  }
  return "?";
}

PrefillMode prefill_mode_from_string(std::string_view s) {
  if (s == "fused") return PrefillMode::fused;
  if (s == "separate") return PrefillMode::separate;
  if (s == "chunked") return PrefillMode::chunked;
  throw usage_error(
      fmt::format("prefill-mode: unknown mode '{}' (use fused, separate or chunked)", s));
}

std::string_view to_string(KvAllocation a) {
  return a == KvAllocation::reserve ? "reserve" : "paged";
}

KvAllocation kv_allocation_from_string(std::string_view s) {
  if (s == "reserve") return KvAllocation::reserve;
  if (s == "paged") return KvAllocation::paged;
  throw usage_error(fmt::format("kv-allocation: unknown mode '{}' (use reserve or paged)", s));
}

namespace {

bool is_fault_kind(std::string_view kind) {
  static const char* kKinds[] = {"400", "408",   "422",        "424",   "429",      "500",
                                 "503", "reset", "disconnect", "stall", "malformed"};
  for (const char* k : kKinds)
    if (kind == k) return true;
  return false;
}

}  // namespace

std::vector<FaultRate> parse_fault_rates(std::string_view spec) {
  std::vector<FaultRate> out;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw usage_error(fmt::format("fault-rate: '{}' is not KIND=RATE (e.g. 503=0.01)", item));
    std::string kind(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    if (!is_fault_kind(kind))
      throw usage_error(fmt::format(
          "fault-rate: unknown kind '{}' (use a status 400/408/422/424/429/500/503, reset, "
          "disconnect, stall or malformed)",
          kind));
    char* end = nullptr;
    double rate = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(rate >= 0 && rate <= 1))
      throw usage_error(
          fmt::format("fault-rate: rate '{}' for {} must be a number in [0, 1]", value, kind));
    out.push_back({kind, rate});
  }
  return out;
}

SimConfig preset_config(std::string_view name) {
  SimConfig c;  // the model and GPU defaults: Llama-2-7B FP16 on an A10G
  c.server.preset = std::string(name);
  // The named presets are engine behaviours (sim/engine_behaviour.h) on those defaults.
  if (name == "tgi" || name == "pytorch" || name == "fastapi") {
    apply_engine_behaviour(name == "tgi" ? "tgi-1.x" : name, c);
    if (name != "tgi") {  // the wrappers take the model's context: Llama-2's 4096
      c.sched.max_input_tokens = 4095;
      c.sched.max_total_tokens = 4096;
    }
    return c;
  }
  if (name == "instant" || name == "fast") {
    // Test preset: 1 ms decode steps, negligible prefill, no practical limits.
    c.sched.batching = BatchPolicy::continuous;
    c.sched.max_batch_size = 1024;
    c.cost.decode_step_ms = 1.0;
    c.cost.prefill_ms_per_token = 0.0001;
    c.cost.step_overhead_ms = 0;
    c.cost.prefill_overhead_ms = 0;
    c.gpu.bandwidth_bytes_per_s = 1e18;  // KV reads are free
    c.gpu.flops = 1e18;
    c.cost.kv_capacity_tokens = 100'000'000;
    c.sched.queue_limit = 0;
    c.sched.overhead_ms = 0;
    c.sched.max_input_tokens = 100'000;
    c.sched.max_total_tokens = 200'000;
    return c;
  }
  throw usage_error(
      fmt::format("preset: unknown preset '{}' (use pytorch, fastapi, tgi or instant)", name));
}

std::vector<std::string> preset_names() {
  return {"pytorch", "fastapi", "tgi", "instant"};
}

namespace {

// The usage error of flag --`flag` holding `value`: "sim: --max-batch-size 0 must be >= 1".
template <class T>
[[noreturn]] void refuse(std::string_view flag, const T& value, std::string_view why) {
  throw usage_error(fmt::format("sim: --{} {} {}", flag, value, why));
}

void at_least_zero(std::string_view flag, double v) {
  if (!(v >= 0)) refuse(flag, v, "must be >= 0");
}

void above_zero(std::string_view flag, double v) {
  if (!(v > 0)) refuse(flag, v, "must be > 0");
}

// A fraction in (0, 1].
void fraction(std::string_view flag, double v) {
  if (!(v > 0 && v <= 1)) refuse(flag, v, "must be in (0, 1]");
}

// The rules between a prefill mode, the KV allocation and the batching they need.
void validate_modes(const SchedulingPolicy& s) {
  const bool continuous = s.batching == BatchPolicy::continuous;
  if (s.prefill_mode != PrefillMode::fused && !continuous)
    refuse("prefill-mode", to_string(s.prefill_mode),
           fmt::format("needs --batching continuous (got {}); none and static use fused",
                       to_string(s.batching)));
  if (s.kv_allocation == KvAllocation::paged && s.prefill_mode == PrefillMode::separate)
    refuse("kv-allocation", "paged",
           "does not go with --prefill-mode separate (TGI 1.x reserves KV)");
  if (s.kv_allocation == KvAllocation::paged && !continuous)
    refuse("kv-allocation", "paged", "needs --batching continuous");
}

// The token budgets of the separate (TGI) and chunked (vLLM) prefill modes.
void validate_budgets(const SchedulingPolicy& s) {
  if (s.kv_block_tokens < 1 || s.kv_block_tokens > 1024)
    refuse("kv-block-tokens", s.kv_block_tokens, "must be in 1..1024");
  at_least_zero("waiting-served-ratio", s.waiting_served_ratio);
  if (s.max_waiting_tokens < 1) refuse("max-waiting-tokens", s.max_waiting_tokens, "must be >= 1");
  if (s.max_batch_prefill_tokens < 0)
    refuse("max-batch-prefill-tokens", s.max_batch_prefill_tokens, "must be >= 0 (0: no limit)");
  if (s.max_batch_total_tokens < 0)
    refuse("max-batch-total-tokens", s.max_batch_total_tokens, "must be >= 0 (0: the KV capacity)");
  if (s.max_num_batched_tokens < 1)
    refuse("max-num-batched-tokens", s.max_num_batched_tokens, "must be >= 1");
  if (s.prefix_cache_tokens < 0)
    refuse("prefix-cache-tokens", s.prefix_cache_tokens, "must be >= 0 (0: the KV capacity)");
  if (s.prefill_mode == PrefillMode::separate && s.max_batch_prefill_tokens > 0 &&
      s.max_batch_prefill_tokens < s.max_input_tokens)
    refuse("max-batch-prefill-tokens", s.max_batch_prefill_tokens,
           fmt::format("is below --max-input-tokens {}: the longest prompt could never be "
                       "prefilled",
                       s.max_input_tokens));
  if (s.prefill_mode == PrefillMode::chunked &&
      s.max_num_batched_tokens < static_cast<int64_t>(s.max_batch_size))
    refuse("max-num-batched-tokens", s.max_num_batched_tokens,
           fmt::format("is below --max-batch-size {}: a step must hold one token per sequence",
                       s.max_batch_size));
}

}  // namespace

void validate(const ServerOptions& s) {
  above_zero("time-scale", s.time_scale);
  if (s.threads < 1 || s.threads > 256) refuse("threads", s.threads, "must be in 1..256");
  if (s.max_body_bytes < 16) refuse("max-body-bytes", s.max_body_bytes, "must be >= 16");
}

void validate(const ModelShape& m) {
  above_zero("model-params", m.params);
  at_least_zero("embedding-params", m.embedding_params);
  above_zero("bytes-per-param", m.bytes_per_param);
  above_zero("kv-bytes-per-elem", m.kv_bytes_per_elem);
  if (!(m.dequant_overhead >= 0))
    refuse("dequant-overhead", m.dequant_overhead, "must be >= 0 (0: none)");
  if (m.num_layers < 1) refuse("num-layers", m.num_layers, "must be >= 1");
  if (m.kv_dim < 1) refuse("kv-dim", m.kv_dim, "must be >= 1");
  if (m.head_dim < 1) refuse("head-dim", m.head_dim, "must be >= 1");
  if (m.hidden_size < 1) refuse("hidden-size", m.hidden_size, "must be >= 1");
}

void validate(const GpuFigures& g) {
  above_zero("gpu-memory-bytes", g.memory_bytes);
  above_zero("gpu-bandwidth", g.bandwidth_bytes_per_s);
  above_zero("gpu-flops", g.flops);
  fraction("bandwidth-efficiency", g.bandwidth_efficiency);
  fraction("mfu", g.mfu);
  at_least_zero("memory-reserve-bytes", g.memory_reserve_bytes);
  if (!(g.idle_power_w >= 0 && g.max_power_w >= g.idle_power_w))
    throw usage_error(fmt::format("sim: GPU power {}..{} W must satisfy 0 <= idle <= max",
                                  g.idle_power_w, g.max_power_w));
}

void validate(const Parallelism& p) {
  if (p.tp < 1 || p.tp > 64) refuse("tensor-parallel", p.tp, "must be in 1..64");
  above_zero("interconnect-bandwidth", p.interconnect_bytes_per_s);
  at_least_zero("allreduce-latency-us", p.allreduce_latency_us);
  if (!(p.activation_bytes > 0))
    throw usage_error(
        fmt::format("sim: activation bytes {} must be > 0 (the TP all-reduce's element size)",
                    p.activation_bytes));
}

void validate(const CostOverrides& c) {
  at_least_zero("decode-step-ms", c.decode_step_ms);
  at_least_zero("prefill-ms-per-token", c.prefill_ms_per_token);
  at_least_zero("step-overhead-ms", c.step_overhead_ms);
  at_least_zero("prefill-overhead-ms", c.prefill_overhead_ms);
  if (c.kv_capacity_tokens < 0)
    refuse("kv-capacity-tokens", c.kv_capacity_tokens, "must be >= 0 (0: derived)");
}

void validate(const SchedulingPolicy& s) {
  if (s.max_batch_size < 1) refuse("max-batch-size", s.max_batch_size, "must be >= 1");
  at_least_zero("batch-window-ms", s.batch_window_ms);
  if (s.queue_limit < 0) refuse("queue-limit", s.queue_limit, "must be >= 0 (0: unlimited)");
  at_least_zero("overhead-ms", s.overhead_ms);
  if (s.max_input_tokens < 1) refuse("max-input-tokens", s.max_input_tokens, "must be >= 1");
  if (s.max_total_tokens <= s.max_input_tokens)
    refuse("max-total-tokens", s.max_total_tokens,
           fmt::format("must be > --max-input-tokens {}", s.max_input_tokens));
  validate_budgets(s);
  validate_modes(s);
}

void validate(const TextOptions& t) {
  if (t.chars_per_token < 1) refuse("chars-per-token", t.chars_per_token, "must be >= 1");
  if (!(t.eos_probability >= 0 && t.eos_probability < 1))
    refuse("eos-probability", t.eos_probability, "must be in [0, 1)");
  if (t.reasoning_length < 0)
    refuse("reasoning-length", t.reasoning_length, "must be >= 0 (0: no reasoning)");
  if (t.image_tokens < 1) refuse("image-tokens", t.image_tokens, "must be >= 1");
  if (t.chat_tokens_per_message < 0 || t.default_max_tokens_completions < 1)
    throw usage_error(fmt::format(
        "sim: chat template tokens {} must be >= 0 and the completions max_tokens default {} >= 1",
        t.chat_tokens_per_message, t.default_max_tokens_completions));
}

void validate(const FaultRate& f) {
  if (!is_fault_kind(f.kind))
    throw usage_error(fmt::format(
        "sim: --fault-rate: unknown kind '{}' (use a status 400/408/422/424/429/500/503, reset, "
        "disconnect, stall or malformed)",
        f.kind));
  if (!(f.rate >= 0 && f.rate <= 1))
    throw usage_error(fmt::format("sim: --fault-rate: rate '{}' for {} must be a number in [0, 1]",
                                  f.rate, f.kind));
}

void validate(const SimConfig& c) {
  validate(c.server);
  validate(c.model);
  validate(c.gpu);
  validate(c.parallel);
  validate(c.cost);
  validate(c.sched);
  validate(c.text);
  for (const FaultRate& f : c.faults) validate(f);
  validate(c.limits);
}

}  // namespace sb::sim
