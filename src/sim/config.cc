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
    static const char* kKinds[] = {"400", "408",   "422",        "424",   "429",      "500",
                                   "503", "reset", "disconnect", "stall", "malformed"};
    bool known = false;
    for (const char* k : kKinds) known = known || kind == k;
    if (!known)
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
  c.preset = std::string(name);
  // The named presets are engine behaviours (sim/engine_behaviour.h) on those defaults.
  if (name == "tgi" || name == "pytorch" || name == "fastapi") {
    apply_engine_behaviour(name == "tgi" ? "tgi-1.x" : name, c);
    if (name != "tgi") {  // the wrappers take the model's context: Llama-2's 4096
      c.max_input_tokens = 4095;
      c.max_total_tokens = 4096;
    }
    return c;
  }
  if (name == "instant" || name == "fast") {
    // Test preset: 1 ms decode steps, negligible prefill, no practical limits.
    c.batching = BatchPolicy::continuous;
    c.max_batch_size = 1024;
    c.decode_step_ms = 1.0;
    c.prefill_ms_per_token = 0.0001;
    c.step_overhead_ms = 0;
    c.prefill_overhead_ms = 0;
    c.gpu_bandwidth_bytes_per_s = 1e18;  // KV reads are free
    c.gpu_flops = 1e18;
    c.kv_capacity_tokens = 100'000'000;
    c.queue_limit = 0;
    c.overhead_ms = 0;
    c.max_input_tokens = 100'000;
    c.max_total_tokens = 200'000;
    return c;
  }
  throw usage_error(
      fmt::format("preset: unknown preset '{}' (use pytorch, fastapi, tgi or instant)", name));
}

std::vector<std::string> preset_names() {
  return {"pytorch", "fastapi", "tgi", "instant"};
}

namespace {

// The scheduling-policy fields (the "scheduling policy" section of SimConfig).
void validate_scheduling(const SimConfig& c) {
  auto bad = [](std::string_view field, std::string_view why) {
    throw usage_error(fmt::format("sim: {} {}", field, why));
  };
  if (c.kv_block_tokens < 1 || c.kv_block_tokens > 1024)
    bad("kv-block-tokens", "must be in 1..1024");
  if (!(c.waiting_served_ratio >= 0)) bad("waiting-served-ratio", "must be >= 0");
  if (c.max_waiting_tokens < 1) bad("max-waiting-tokens", "must be >= 1");
  if (c.max_batch_prefill_tokens < 0) bad("max-batch-prefill-tokens", "must be >= 0 (0: no limit)");
  if (c.max_batch_total_tokens < 0)
    bad("max-batch-total-tokens", "must be >= 0 (0: the KV capacity)");
  if (c.max_num_batched_tokens < 1) bad("max-num-batched-tokens", "must be >= 1");
  if (c.prefix_cache_tokens < 0) bad("prefix-cache-tokens", "must be >= 0 (0: the KV capacity)");
  const bool continuous = c.batching == BatchPolicy::continuous;
  if (c.prefill_mode != PrefillMode::fused && !continuous)
    bad("prefill-mode",
        fmt::format("'{}' needs --batching continuous (got {}); none and static use fused",
                    to_string(c.prefill_mode), to_string(c.batching)));
  if (c.prefill_mode == PrefillMode::separate && c.max_batch_prefill_tokens > 0 &&
      c.max_batch_prefill_tokens < c.max_input_tokens)
    bad("max-batch-prefill-tokens",
        fmt::format("{} is below max-input-tokens {}: the longest prompt could never be prefilled",
                    c.max_batch_prefill_tokens, c.max_input_tokens));
  if (c.kv_allocation == KvAllocation::paged && c.prefill_mode == PrefillMode::separate)
    bad("kv-allocation", "paged does not go with prefill-mode separate (TGI 1.x reserves KV)");
  if (c.kv_allocation == KvAllocation::paged && !continuous)
    bad("kv-allocation", "paged needs --batching continuous");
  if (c.prefill_mode == PrefillMode::chunked &&
      c.max_num_batched_tokens < static_cast<int64_t>(c.max_batch_size))
    bad("max-num-batched-tokens",
        fmt::format("{} is below max-batch-size {}: a step must hold one token per sequence",
                    c.max_num_batched_tokens, c.max_batch_size));
}

}  // namespace

void validate(const SimConfig& c) {
  auto bad = [](std::string_view field, std::string_view why) {
    throw usage_error(fmt::format("sim: {} {}", field, why));
  };
  if (!(c.time_scale > 0)) bad("time-scale", "must be > 0");
  if (c.threads < 1 || c.threads > 256) bad("threads", "must be in 1..256");
  if (c.max_batch_size < 1) bad("max-batch-size", "must be >= 1");
  if (c.queue_limit < 0) bad("queue-limit", "must be >= 0 (0: unlimited)");
  if (c.overhead_ms < 0 || c.step_overhead_ms < 0 || c.prefill_overhead_ms < 0 ||
      c.decode_step_ms < 0 || c.prefill_ms_per_token < 0 || c.batch_window_ms < 0)
    bad("durations", "must be >= 0");
  if (!(c.gpu_bandwidth_bytes_per_s > 0) || !(c.gpu_flops > 0))
    bad("gpu", "bandwidth and FLOP/s must be > 0");
  if (!(c.bandwidth_efficiency > 0 && c.bandwidth_efficiency <= 1))
    bad("bandwidth-efficiency", "must be in (0, 1]");
  if (!(c.mfu > 0 && c.mfu <= 1)) bad("mfu", "must be in (0, 1]");
  if (c.max_input_tokens < 1) bad("max-input-tokens", "must be >= 1");
  if (c.max_total_tokens <= c.max_input_tokens)
    bad("max-total-tokens", "must be > max-input-tokens");
  if (c.chars_per_token < 1) bad("chars-per-token", "must be >= 1");
  if (!(c.eos_probability >= 0 && c.eos_probability < 1))
    bad("eos-probability", "must be in [0, 1)");
  if (c.max_body_bytes < 16) bad("max-body-bytes", "must be >= 16");
  if (c.kv_capacity_tokens < 0) bad("kv-capacity-tokens", "must be >= 0 (0: derived)");
  validate_scheduling(c);
}

}  // namespace sb::sim
