#include "engine/config_json.h"

#include <fstream>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#include "common/redact.h"
#include "workload/trace.h"

namespace sb::engine {

nlohmann::json config_to_json(const EngineConfig& c) {
  using nlohmann::json;
  json headers = json::object();
  for (const auto& [name, value] : c.headers)
    headers[name] = is_secret_name(name) || is_credential_value(value) ? json(kRedacted)
                                                                       : json(redact_text(value));
  const auto& l = c.load;
  json load = {{"mode", l.mode == LoadMode::closed ? "closed" : "open"},
               {"num_requests", l.num_requests},
               {"duration_s", to_s(l.duration)},
               {"warmup", l.warmup},
               {"seed", l.seed}};
  if (l.mode == LoadMode::closed) {
    load["concurrency"] = l.concurrency;
    // --session-concurrency: num_requests counts sessions; summary.json `sessions`.
    if (l.sessions.enabled())
      load["sessions"] = {{"concurrency", l.sessions.concurrency},
                          {"turns", l.sessions.turns.to_string()},
                          {"think_time", l.sessions.think.to_string()},
                          {"header", l.sessions.header}};
  } else {
    load["request_rate"] = l.request_rate;
    load["arrival"] = load::to_string(l.arrival);
    load["burstiness"] = l.burstiness;
    load["rate_pattern"] = load::to_string(l.rate_pattern);  // parse_rate_pattern reads it back
    load["max_concurrency"] = l.max_concurrency;
  }
  if (!l.priority_mix.empty()) {  // --priority-mix: summary.json `priority_classes`
    json mix = json::array();
    for (const auto& pc : l.priority_mix.classes)
      mix.push_back({{"class", pc.name}, {"share", pc.share}, {"priority", pc.priority}});
    load["priority_mix"] = std::move(mix);
  }
  return json{
      {"base_url", redact_url(c.client.url.to_string())},
      {"endpoints",
       [&] {
         json e = json::array({redact_url(c.client.url.to_string())});
         for (const auto& u : c.extra_endpoints) e.push_back(redact_url(u.to_string()));
         return e;
       }()},
      {"load_balancer", to_string(c.load_balancer)},
      {"endpoint", redact_url(c.endpoint)},
      {"api", protocol::to_string(c.adapter.api)},
      {"stream", c.adapter.stream},
      {"model", c.adapter.model},
      {"extra_body", c.adapter.extra_body.is_null() ? json::object()
                                                    : redact_secret_members(c.adapter.extra_body)},
      {"ignore_eos", c.adapter.ignore_eos},
      {"headers", headers},
      {"api_key", c.api_key.empty() ? json(nullptr) : json(kRedacted)},
      {"tls", {{"insecure", c.client.insecure}, {"ca_file", c.client.ca_file}}},
      {"timeouts_s",
       {{"connect", to_s(c.timeouts.connect)},
        {"first_token", to_s(c.timeouts.first_token)},
        {"idle", to_s(c.timeouts.idle)},
        {"total", to_s(c.timeouts.total)},
        // --abandon-after (0: users never give up); summary.json `abandonment` when set.
        {"abandon_after", to_s(c.timeouts.abandon_after)}}},
      {"load", load},
      {"workload",
       {{"input_tokens", c.workload.input_tokens},
        {"output_tokens", c.workload.output_tokens},
        {"prompt_file", c.workload.prompt_file},
        {"scenario", c.workload.scenario},
        {"input_dist", c.workload.input_dist},
        {"output_dist", c.workload.output_dist},
        {"dataset", c.workload.dataset},
        {"dataset_format", c.workload.dataset_format},
        {"strict", c.workload.strict},
        {"shared_prefix", c.workload.shared_prefix},
        {"tokenizer", c.workload.tokenizer},
        {"batch_inputs", c.workload.batch_inputs},
        // --trace: what summary.json `trace` reports on (null without a trace).
        {"trace", c.workload.trace
                      ? json{{"file", c.workload.trace->spec.path},
                             {"format", workload::to_string(c.workload.trace->spec.format)},
                             {"speedup", c.workload.trace->spec.speedup},
                             {"window", workload::to_string(c.workload.trace->spec.window)},
                             {"block_tokens", c.workload.trace->spec.block_tokens}}
                      : json(nullptr)},
        // How input_tokens and (unless the server reports usage) output_tokens are counted.
        {"token_counts", c.workload.tokenizer.empty() ? "estimate" : "tokenizer"}}},
      {"workers", c.workers},
      {"max_response_bytes", c.client.max_response_bytes},
      {"max_event_bytes", c.max_event_bytes},
      {"save_outputs", c.save_outputs},
      {"quality_tokenize", quality::to_string(c.quality_tokenize)},
      {"grace_period_s", to_s(c.grace_period)},
  };
}

nlohmann::json host_facts() {
  nlohmann::json h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h["hostname"] = name;
  utsname u{};
  if (uname(&u) == 0) {
    h["kernel"] = std::string(u.sysname) + " " + u.release;
    h["arch"] = u.machine;
  }
  h["cpus"] = std::thread::hardware_concurrency();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) h["cpu_model"] = line.substr(colon + 2);
      break;
    }
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) h["memory_bytes"] = static_cast<int64_t>(pages) * page;
  return h;
}

metrics::RunInfo run_info(const EngineConfig& config, const RunResult& result,
                          const std::string& sim_preset, const metrics::Slo& slo) {
  const LoadConfig& l = config.load;
  metrics::RunInfo info;
  info.tool_version = SERVEBENCH_VERSION;
  info.config = config_to_json(config);
  info.config["workers_used"] = result.workers;
  if (!sim_preset.empty()) info.config["sim_preset"] = sim_preset;
  info.host = host_facts();
  info.started_at = result.started_at;
  info.duration_s = result.duration_s;
  info.interrupted = result.interrupted;
  info.load_mode = l.mode == LoadMode::closed ? "closed" : "open";
  info.concurrency = static_cast<int>(l.concurrency);
  info.target_rate = l.mode == LoadMode::open ? l.request_rate : 0;
  info.max_concurrency = static_cast<int>(l.max_concurrency);
  info.slo = slo;
  if (config.timeouts.abandon_after > Nanos::zero())
    info.abandon_after_s = to_s(config.timeouts.abandon_after);
  if (const auto& t = config.workload.trace) {
    metrics::TraceInfo& ti = info.trace.emplace();
    ti.file = t->spec.path;
    ti.format = workload::to_string(t->spec.format);
    ti.entries = static_cast<int64_t>(t->entries.size());
    ti.lines = t->lines;
    ti.skipped = t->skipped;
    ti.out_of_order = t->out_of_order;
    ti.outside_window = t->outside_window;
    ti.window_start_s = t->window_start_s;
    ti.window_end_s = t->window_end_s;
    ti.speedup = t->spec.speedup;
    ti.span_s = t->span_s;
  }
  info.bucket_interval_ms = to_ms(config.bucket_interval);
  info.client_loop =
      metrics::ClientLoopInfo{result.workers, result.loop_lag.ticks, result.loop_lag.late_ticks,
                              to_ms(result.loop_lag.max_lag)};
  return info;
}

}  // namespace sb::engine
