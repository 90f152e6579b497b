#include "sim/config.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

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
  SimConfig c;  // the defaults are the tgi preset
  c.preset = std::string(name);
  if (name == "tgi") {
    return c;
  }
  if (name == "pytorch" || name == "fastapi") {
    // HF transformers generate(), eager PyTorch, one request at a time.
    c.batching = BatchPolicy::none;
    c.max_batch_size = 1;
    c.step_overhead_ms = 8.0;     // eager kernels + Python per token
    c.prefill_overhead_ms = 5.0;  // tokenizer + generate() setup
    c.queue_limit = 0;            // the HTTP server just queues
    c.max_input_tokens = 4095;    // Llama-2 context 4096
    c.max_total_tokens = 4096;
    c.overhead_ms = 1.0;
    if (name == "fastapi") {
      c.overhead_ms = 10.0;  // uvicorn + FastAPI routing + pydantic + JSON, per request
      c.serial_lock = true;  // one worker: generate() blocks the event loop (GIL)
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
}

}  // namespace sb::sim
