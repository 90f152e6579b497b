#include "cli/prof_options.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/pooling_flags.h"
#include "cli/session_flags.h"
#include "cli/trace_flags.h"
#include "common/error.h"
#include "common/header_check.h"
#include "common/redact.h"
#include "common/units.h"
#include "load/priority_mix.h"
#include "protocol/adapter.h"
#include "workload/length_spec.h"
#include "workload/shared_prefix.h"

namespace sb::cli {

void add_prof_flags(CLI::App& app, ProfFlags& f) {
  // Target and protocol.
  app.add_option("--base-url", f.base_url,
                 "Server URL, e.g. http://127.0.0.1:8000 or https://host/v1");
  app.add_option("--endpoint", f.endpoint, "Path under the base URL (default: the API's own)");
  app.add_option("--api", f.api,
                 "tgi | openai | openai-chat | generic | llamacpp | openai-responses | anthropic | "
                 "embeddings | rerank")
      ->capture_default_str();
  app.add_flag("--no-stream", f.no_stream, "Ask for whole responses instead of a stream");
  app.add_option("--model", f.model, "Model name sent in OpenAI and Anthropic requests");
  app.add_option("--extra-body", f.extra_body, "JSON object merged into every request body");
  app.add_flag("--ignore-eos", f.ignore_eos, "Ask the server to ignore end-of-sequence tokens");
  app.add_option("--request-template", f.request_template,
                 "--api generic: JSON body file with {{prompt}}, {{max_tokens}}, {{model}}");
  app.add_option("--stream-text-pointer", f.stream_pointer,
                 "--api generic: JSON pointer to the text in a streamed event (e.g. /token/text)");
  app.add_option("--body-text-pointer", f.body_pointer,
                 "--api generic: JSON pointer to the text in a whole response");
  app.add_option("--stream-done-pointer", f.done_pointer,
                 "--api generic: JSON pointer whose true value ends the stream (e.g. /stop)");
  app.add_option("--stream-usage-pointer", f.usage_pointer,
                 "--api generic: JSON pointer to the output token count (e.g. /tokens_predicted) "
                 "or to a usage object");
  app.add_option("-H,--header", f.headers, "Extra request header 'Name: value' (repeatable)");
  app.add_option(
      "--api-key-env", f.api_key_env,
      "Environment variable holding an API key, sent as a bearer token (--api anthropic: as "
      "x-api-key; never written out)");
  app.add_option("--api-key-file", f.api_key_file,
                 "File holding an API key (mode 600), sent as a bearer token (--api anthropic: as "
                 "x-api-key; never written out)");
  app.add_flag("--insecure", f.insecure, "Do not verify the server's TLS certificate");
  app.add_option("--ca-file", f.ca_file, "PEM bundle of extra CA certificates");
  // Timeouts.
  app.add_option("--connect-timeout", f.connect_timeout, "TCP+TLS connect timeout")
      ->capture_default_str();
  app.add_option("--first-token-timeout", f.first_token_timeout, "Send to first token")
      ->capture_default_str();
  app.add_option("--idle-timeout", f.idle_timeout, "Longest gap between two events")
      ->capture_default_str();
  app.add_option("--timeout", f.total_timeout, "Whole-request timeout")->capture_default_str();
  // Load.
  app.add_option(
      "--concurrency", f.concurrency,
      "Closed loop: requests in flight (default 1; sweep: levels in rising order, e.g. 1,4,16)");
  app.add_option("--request-rate", f.request_rate,
                 "Open loop: requests per second (sweep: rates in rising order, e.g. 2,4,8)");
  app.add_option("--arrival", f.arrival, "Open loop: constant | poisson | gamma")
      ->capture_default_str();
  app.add_option("--burstiness", f.burstiness, "Gamma shape (1 = Poisson, < 1 burstier)")
      ->capture_default_str();
  app.add_option("--rate-pattern", f.rate_pattern,
                 "Open loop: the rate's shape over time, --request-rate its base: "
                 "diurnal:period=600s,amplitude=0.5 | onoff:on=5s,off=10s,low=0.1 | "
                 "flash:at=60s,peak=5,decay=30s (default steady)");
  app.add_option("--abandon-after", f.abandon_after,
                 "Users give up (class abandoned) when no first token arrived this long after "
                 "the intended send time (e.g. 5s)");
  app.add_option("--priority-mix", f.priority_mix,
                 "Priority classes, most urgent first, with their shares of the requests "
                 "(e.g. high:0.2,normal:0.8): vLLM's body priority and x-priority headers");
  app.add_option("--max-concurrency", f.max_concurrency,
                 "Open loop: cap on requests in flight (0 = none)");
  app.add_option("-n,--num-requests", f.num_requests, "Measured requests (e.g. 1000, 2k)");
  app.add_option("--duration", f.duration, "Stop issuing after this long (e.g. 60s, 1h)");
  app.add_option("--warmup", f.warmup, "Requests sent first and not measured")
      ->capture_default_str();
  app.add_option("--seed", f.seed, "Seed for prompts and arrival times")->capture_default_str();
  app.add_option("--workers", f.workers, "Client threads (0 = one per core)")
      ->capture_default_str();
  // Workload.
  app.add_option("--input-length", f.input_length, "Synthetic prompt length in tokens (estimated)")
      ->capture_default_str();
  app.add_option("--output-length", f.output_length, "Output tokens to request")
      ->capture_default_str();
  app.add_option("--prompt-file", f.prompt_file, "One prompt per line, used in turn");
  app.add_option("--scenario", f.scenario,
                 "Workload preset: chat | long | mixed (mixed:CHAT/LONG, e.g. mixed:70/30)");
  app.add_option("--dataset", f.dataset,
                 "Prompts from a dataset: JSONL, ShareGPT JSON, or a folder of images");
  app.add_option("--dataset-format", f.dataset_format,
                 "auto | synthetic | jsonl | sharegpt | images")
      ->capture_default_str();
  app.add_option("--batch-size", f.batch_size,
                 "--api embeddings: inputs per request; --api rerank: documents per request")
      ->capture_default_str();
  app.add_flag("--strict", f.strict,
               "A malformed dataset record is an error (default: skipped and counted)");
  app.add_option(
      "--input-dist", f.input_dist,
      "Synthetic prompt lengths, e.g. normal:mean=200,sd=50,min=10,max=500 (docs/workloads.md)");
  app.add_option("--output-dist", f.output_dist,
                 "Output lengths (max_tokens), e.g. uniform:min=64,max=256");
  app.add_option("--shared-prefix", f.shared_prefix,
                 "Shared-prefix prompts: prefixes=N,suffixes=M[,prefix=T][,suffix=T]");
  app.add_option(
      "--tokenizer", f.tokenizer,
      "tokenizer.model (SentencePiece) or tokenizer.json (byte-level BPE): exact token counts");
  app.add_option("--trace", f.trace,
                 "Replay a production trace: its arrival times, lengths and shared prefixes");
  app.add_option("--trace-format", f.trace_format,
                 "--trace's format: mooncake | burstgpt | azure | jsonl");
  app.add_option("--trace-speedup", f.trace_speedup,
                 "Replay the trace this many times faster (0.5: at half speed)")
      ->capture_default_str();
  app.add_option("--trace-window", f.trace_window,
                 "Replay only START:END of the trace, in its seconds from its first entry "
                 "(e.g. 600:1200, 600:, :60)");
  app.add_option("--trace-block-tokens", f.trace_block_tokens,
                 "Prompt tokens one trace hash id stands for (Mooncake: 512)")
      ->capture_default_str();
  app.add_option("--session-concurrency", f.session_concurrency,
                 "Multi-turn sessions in flight (a closed loop over sessions; -n counts sessions); "
                 "each turn carries the earlier turns' real answers");
  app.add_option("--turns", f.turns,
                 "Turns per session: N or a distribution, e.g. uniform:min=2,max=6 (default 3)");
  app.add_option("--think-time", f.think_time,
                 "Pause before each later turn: 2s | exp:2s | uniform:1s-3s (default 0)");
  app.add_option("--session-header", f.session_header,
                 "Send the session id in this header (router session affinity)");
  // Metrics and results.
  app.add_option("--goodput", f.goodput,
                 "SLO for goodput: ttft:MS, tpot:MS or e2e:MS (repeatable)");
  app.add_option("--bucket-interval", f.bucket_interval, "Time-series bucket in ms (e.g. 1000)")
      ->capture_default_str();
  app.add_option("-o,--output-dir", f.output_dir,
                 "Results folder (default runs/<time>-<api>); refused when not empty");
  app.add_flag("--overwrite", f.overwrite,
               "Write into a non-empty -o folder, replacing the files of an earlier run");
  app.add_option("--max-error-rate", f.max_error_rate,
                 "Exit 4 when the error rate is above this fraction");
  app.add_flag("--strict-client", f.strict_client,
               "Exit 8 when the client was the bottleneck (summary.json client_health)");
  app.add_option("--max-response-bytes", f.max_response_bytes, "Per-response body limit")
      ->capture_default_str();
  app.add_option("--max-event-bytes", f.max_event_bytes, "Per-SSE-event limit")
      ->capture_default_str();
  app.add_option("--grace-period", f.grace_period,
                 "After Ctrl-C, wait this long for in-flight requests")
      ->capture_default_str();
  app.add_option(
      "--sim", f.sim,
      "Start the embedded simulator with this preset (tgi, fastapi, pytorch, instant) and target "
      "it");
  app.add_option("--sim-gpu", f.sim_gpu,
                 "Embedded catalog simulator: GPU (A10G, L4, L40S, A100, H100, H200; "
                 "servebench sim --list)");
  app.add_option("--sim-model", f.sim_model,
                 "Embedded catalog simulator: model (llama-2-7b, llama-3.1-8b, qwen2.5-7b, ...)");
  app.add_option("--sim-engine", f.sim_engine,
                 "Embedded catalog simulator: engine behaviour (tgi-1.x, vllm, trtllm, pytorch, "
                 "fastapi)");
  app.add_option("--sim-tp", f.sim_tp,
                 "Embedded catalog simulator: tensor-parallel GPUs (1, 2, 4, 8)");
  app.add_option("--sim-dtype", f.sim_dtype,
                 "Embedded catalog simulator: weight precision (fp16, bf16, fp8, int8, int4)");
  app.add_option("--sim-time-scale", f.sim_time_scale,
                 "Embedded simulator: multiply simulated times");
  app.add_option("--sim-seed", f.sim_seed,
                 "Embedded simulator: seed of its output text (a different 'model'; default 42)");
  app.add_option("--sim-reasoning-length", f.sim_reasoning_length,
                 "Embedded simulator: the first N tokens of each reply are reasoning (a reasoning "
                 "model; --api openai-chat, openai-responses or anthropic)");
  app.add_flag("--save-outputs", f.save_outputs,
               "Write each response's text to requests.jsonl (\"output\"; for `servebench agree`)");
  app.add_option("--quality-tokenize", f.quality_tokenize,
                 "Tokenizer of the quality scores: auto (zh for mostly-CJK text, else 13a), 13a, "
                 "zh or char")
      ->capture_default_str();
  app.add_flag("-q,--quiet", f.quiet, "Print no summary table");
  app.add_flag("--no-progress", f.no_progress, "Print no live progress");
  add_telemetry_flags(app, f.telemetry);
  add_economics_flags(app, f.economics);
}

namespace {

Nanos duration_flag(const std::string& value, const char* flag) {
  return from_s(parse_duration_s(value, flag));
}

std::string read_file(const std::string& path, const char* flag) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("{} '{}': cannot read the file", flag, path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The key in `path`: the whole file, surrounding whitespace (the newline an editor or `echo`
// leaves) removed. Refused when the file is readable or writable by group or others (as ssh
// does for its keys), and when the key holds a line break or another control character
// (it would end the Authorization header and start another).
std::string read_key_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw usage_error(fmt::format("--api-key-file '{}': cannot read the file", path));
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw usage_error(
        fmt::format("--api-key-file '{}': the file is accessible by group or others (mode {:04o}); "
                    "restrict it with: chmod 600 '{}'",
                    path, st.st_mode & 07777, path));
  std::string key = read_file(path, "--api-key-file");
  const auto first = key.find_first_not_of(" \t\r\n");
  key = first == std::string::npos ? ""
                                   : key.substr(first, key.find_last_not_of(" \t\r\n") - first + 1);
  if (key.empty()) throw usage_error(fmt::format("--api-key-file '{}': the file is empty", path));
  if (const std::string why = header_value_problem(key); !why.empty())
    throw usage_error(fmt::format(
        "--api-key-file '{}': the key {}; the file must hold the key alone, on one line", path,
        why));
  return key;
}

// The value of --api-key-env's variable; refused when unset, empty or holding a control
// character (a line break would end the Authorization header).
std::string key_from_env(const std::string& var) {
  const char* key = std::getenv(var.c_str());
  if (!key || !*key)
    throw usage_error(fmt::format("--api-key-env {}: the variable is not set or empty", var));
  if (const std::string why = header_value_problem(key); !why.empty())
    throw usage_error(
        fmt::format("--api-key-env {}: the key {}; set the variable to the key "
                    "alone (e.g. {}=$(cat keyfile))",
                    var, why, var));
  return key;
}

// -H 'Name: value' -> (name, value). A name that is not a header token, or a value with a
// control character, is refused naming the header (never its value: it may be a secret).
std::pair<std::string, std::string> parse_header_flag(const std::string& h) {
  const auto colon = h.find(':');
  if (colon == std::string::npos || colon == 0)
    throw usage_error(
        "-H: expected 'Name: value' (a header given has no name before a ':'; "
        "it is not shown, it may be a key)");
  std::string name = h.substr(0, colon);
  std::string value = h.substr(colon + 1);
  const auto first = value.find_first_not_of(" \t");
  value = first == std::string::npos ? "" : value.substr(first);
  if (const std::string why = header_name_problem(name); !why.empty())
    throw usage_error(fmt::format("-H: the header name '{}' {}", redact_text(name), why));
  if (const std::string why = header_value_problem(value); !why.empty())
    throw usage_error(fmt::format(
        "-H {}: the value {}; a header value is one line of printable text", name, why));
  return {std::move(name), std::move(value)};
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.") ||
         host.ends_with(".localhost");
}

// A credential (the API key, or a header such as X-Api-Key) that would cross the
// network unencrypted: warn on stderr, naming the host; the run goes on.
void warn_plain_http_secrets(const engine::EngineConfig& e) {
  if (e.client.url.tls || is_loopback_host(e.client.url.host)) return;
  bool secret_header = false;
  for (const auto& [name, value] : e.headers)
    secret_header |= is_secret_name(name) || is_credential_value(value);
  if (e.api_key.empty() && !secret_header) return;
  fmt::print(stderr,
             "servebench: warning: {} will be sent over plain http to {} (not a loopback host): "
             "anyone on the path can read it; use https://\n",
             e.api_key.empty() ? "a credential header" : "the API key", e.client.url.host);
}

bool catalog_flags_given(const ProfFlags& f) {
  return !f.sim_gpu.empty() || !f.sim_model.empty() || !f.sim_engine.empty() ||
         !f.sim_dtype.empty() || f.sim_tp.has_value();
}

// --sim PRESET, or the catalog choice of the --sim-gpu/--sim-model/... flags (not both).
plan::SimTarget sim_target_of(const ProfFlags& f) {
  if (!catalog_flags_given(f)) {
    plan::SimTarget t;
    t.preset = f.sim;
    return t;
  }
  if (!f.sim.empty())
    throw usage_error(fmt::format(
        "--sim {} and --sim-gpu/--sim-model/--sim-engine/--sim-tp/--sim-dtype exclude each "
        "other: a preset or a catalog choice (e.g. --sim-engine vllm --sim-gpu H100 "
        "--sim-model llama-3.1-8b), not both",
        f.sim));
  sim::SimChoice ch{f.sim_gpu, f.sim_model, f.sim_engine, f.sim_dtype, f.sim_tp.value_or(1)};
  return plan::catalog_target(ch);
}

// --sim-reasoning-length: only with the embedded simulator, on an API that has a reasoning
// field (the simulator streams every token as text on TGI, completions and llama.cpp).
int64_t sim_reasoning_length_of(const ProfFlags& f, protocol::Api api) {
  if (f.sim_reasoning_length == 0) return 0;
  if (f.sim_reasoning_length < 0)
    throw usage_error("--sim-reasoning-length: a number of tokens >= 0 (0: no reasoning)");
  if (f.sim.empty() && !catalog_flags_given(f))
    throw usage_error("--sim-reasoning-length needs the embedded simulator (--sim tgi, ...)");
  if (api != protocol::Api::openai_chat && api != protocol::Api::openai_responses &&
      api != protocol::Api::anthropic)
    throw usage_error(fmt::format(
        "--sim-reasoning-length: --api {} has no reasoning field; use --api openai-chat, "
        "openai-responses or anthropic",
        protocol::to_string(api)));
  return f.sim_reasoning_length;
}

// --priority-mix: on the APIs whose servers take a priority. vLLM's completions and chat read a
// top-level "priority" (lower = earlier, --scheduling-policy priority); TGI has no such
// parameter, so it gets only the x-priority / x-priority-value headers (for a gateway, and
// the simulator's TGI endpoints). llama.cpp, Responses, Anthropic and a generic body have none.
load::PriorityMix priority_mix_of(const ProfFlags& f, protocol::Api api) {
  if (f.priority_mix.empty()) return {};
  load::PriorityMix mix = load::parse_priority_mix(f.priority_mix);
  if (!protocol::sends_priority(api))
    throw usage_error(fmt::format(
        "--priority-mix: --api {} has no request priority servebench can send; use --api "
        "openai or openai-chat (vLLM's \"priority\" field) or tgi (the x-priority headers only)",
        protocol::to_string(api)));
  return mix;
}

}  // namespace

plan::RunSpec to_run_settings(const ProfFlags& f) {
  plan::RunSpec run;
  auto& e = run.engine;
  run.sim = sim_target_of(f);
  if (!(f.sim_time_scale > 0))
    throw usage_error("--sim-time-scale: a positive factor (e.g. 0.1 runs 10x faster)");
  run.sim.time_scale = f.sim_time_scale;
  if (!f.sim_seed.empty()) run.sim.seed = parse_uint64(f.sim_seed, "--sim-seed");
  run.telemetry = to_run_telemetry_config(f.telemetry);
  run.economics = to_economics_config(f.economics);
  e.save_outputs = f.save_outputs;
  if (auto t = quality::tokenize_from_string(f.quality_tokenize))
    e.quality_tokenize = *t;
  else
    throw usage_error(
        fmt::format("--quality-tokenize '{}': use auto, 13a, zh or char", f.quality_tokenize));
  if (!f.base_url.empty()) e.client.url = net::parse_url(f.base_url);
  e.client.insecure = f.insecure;
  e.client.ca_file = f.ca_file;
  e.client.max_response_bytes =
      static_cast<size_t>(parse_count(f.max_response_bytes, "--max-response-bytes"));
  e.max_event_bytes = static_cast<size_t>(parse_count(f.max_event_bytes, "--max-event-bytes"));
  e.endpoint = f.endpoint;
  if (!e.endpoint.empty() && e.endpoint.front() != '/') e.endpoint.insert(e.endpoint.begin(), '/');

  const auto api = protocol::api_from_string(f.api);
  if (!api)
    throw usage_error(fmt::format("--api '{}': expected {}", f.api, protocol::api_choices()));
  e.adapter.api = *api;
  run.sim.reasoning_length = sim_reasoning_length_of(f, *api);
  e.adapter.stream = !f.no_stream;
  e.adapter.model = f.model;
  e.adapter.ignore_eos = f.ignore_eos;
  if (!f.extra_body.empty()) {
    e.adapter.extra_body = nlohmann::json::parse(f.extra_body, nullptr, false);
    if (e.adapter.extra_body.is_discarded() || !e.adapter.extra_body.is_object())
      // Not echoed: the body may hold a key.
      throw usage_error(
          "--extra-body: must be a JSON object, e.g. '{\"temperature\":0}' (the "
          "text given does not parse as one)");
  }
  if (!f.request_template.empty())
    e.adapter.generic_template = read_file(f.request_template, "--request-template");
  e.adapter.generic_stream_pointer = f.stream_pointer;
  e.adapter.generic_body_pointer = f.body_pointer;
  e.adapter.generic_final_pointer = f.done_pointer;
  e.adapter.generic_usage_pointer = f.usage_pointer;

  for (const auto& h : f.headers) e.headers.push_back(parse_header_flag(h));
  if (!f.api_key_env.empty()) e.api_key = key_from_env(f.api_key_env);
  if (!f.api_key_file.empty()) {
    if (!f.api_key_env.empty())
      throw usage_error("--api-key-file and --api-key-env exclude each other; give the key once");
    e.api_key = read_key_file(f.api_key_file);
  }

  e.timeouts.connect = duration_flag(f.connect_timeout, "--connect-timeout");
  e.timeouts.first_token = duration_flag(f.first_token_timeout, "--first-token-timeout");
  e.timeouts.idle = duration_flag(f.idle_timeout, "--idle-timeout");
  e.timeouts.total = duration_flag(f.total_timeout, "--timeout");
  if (!f.abandon_after.empty()) {
    e.timeouts.abandon_after = duration_flag(f.abandon_after, "--abandon-after");
    if (e.timeouts.abandon_after <= Nanos::zero())
      throw usage_error(
          fmt::format("--abandon-after {}: must be longer than 0 (e.g. 5s)", f.abandon_after));
  }
  e.grace_period = duration_flag(f.grace_period, "--grace-period");
  e.bucket_interval = from_ms(parse_duration_ms(f.bucket_interval, "--bucket-interval"));
  e.workers = f.workers;

  auto& l = e.load;
  check_trace_flags(f);
  check_session_flags(f);
  if (!f.request_rate.empty() && !f.concurrency.empty())
    throw usage_error(
        "--concurrency (closed loop) and --request-rate (open loop) exclude each "
        "other; use --request-rate with --max-concurrency to cap an open loop");
  // The open loop's shape is read whatever the mode (a plan's open-loop stages take it from
  // its defaults); a closed loop does not use it.
  l.arrival = load::parse_arrival(f.arrival);
  l.burstiness = f.burstiness;  // > 0: engine::validate
  if (!f.rate_pattern.empty()) l.rate_pattern = load::parse_rate_pattern(f.rate_pattern);
  l.max_concurrency = parse_count(f.max_concurrency, "--max-concurrency");
  if (!f.request_rate.empty()) {
    l.mode = engine::LoadMode::open;
    l.request_rate = parse_rate_per_s(f.request_rate, "--request-rate");
  } else {
    l.mode = engine::LoadMode::closed;
    l.concurrency = f.concurrency.empty() ? 1 : parse_count(f.concurrency, "--concurrency");
  }
  if (!f.num_requests.empty()) l.num_requests = parse_count(f.num_requests, "--num-requests");
  if (!f.duration.empty()) l.duration = duration_flag(f.duration, "--duration");
  if (f.num_requests.empty() && f.duration.empty()) l.num_requests = 100;
  l.warmup = parse_count(f.warmup, "--warmup");
  l.seed = parse_uint64(f.seed, "--seed");
  l.priority_mix = priority_mix_of(f, *api);

  e.workload.input_tokens = parse_count(f.input_length, "--input-length");
  e.workload.output_tokens = parse_count(f.output_length, "--output-length");
  e.workload.prompt_file = f.prompt_file;
  e.workload.scenario = f.scenario;
  e.workload.dataset = f.dataset;
  e.workload.dataset_format = f.dataset_format;
  e.workload.strict = f.strict;
  // The specs are read again where the prompts are made (workload/prompt_source.h); read here
  // too, so that a broken one is refused before anything starts (and a plan's at its line).
  if (!f.input_dist.empty()) (void)workload::parse_length_spec(f.input_dist, "--input-dist");
  if (!f.output_dist.empty())
    (void)workload::parse_output_length_spec(f.output_dist, "--output-dist");
  if (!f.shared_prefix.empty()) (void)workload::parse_shared_prefix(f.shared_prefix);
  e.workload.input_dist = f.input_dist;
  e.workload.output_dist = f.output_dist;
  e.workload.shared_prefix = f.shared_prefix;
  e.workload.tokenizer = f.tokenizer;
  e.workload.seed = l.seed;
  apply_trace_flags(f, e);    // --trace: the trace's schedule, lengths and prompts
  apply_session_flags(f, e);  // --session-concurrency: a closed loop over sessions
  apply_pooling_flags(f, e);  // --api embeddings / rerank: whole bodies, --batch-size inputs

  run.slo = metrics::parse_goodput_flags(f.goodput);
  run.max_error_rate = f.max_error_rate;
  run.strict_client = f.strict_client;
  if (run.max_error_rate > 1)
    throw usage_error("--max-error-rate: a fraction between 0 and 1 (e.g. 0.01 for 1%)");
  run.print_progress = !f.no_progress;
  return run;
}

ProfConfig to_prof_config(const ProfFlags& f) {
  if (f.base_url.empty() && f.sim.empty() && !catalog_flags_given(f))
    throw usage_error(
        "--base-url is required (e.g. --base-url http://127.0.0.1:8000), "
        "or --sim tgi (or --sim-gpu/--sim-model/...) to benchmark the embedded "
        "simulator");
  ProfConfig pc;
  pc.run = to_run_settings(f);
  if (!f.rate_pattern.empty() && f.request_rate.empty())
    throw usage_error(
        "--rate-pattern shapes an open loop's rate: give --request-rate R (its base rate) "
        "instead of --concurrency");
  pc.output_dir = f.output_dir;
  pc.overwrite = f.overwrite;
  pc.quiet = f.quiet;
  pc.no_progress = f.no_progress;
  if (pc.run.sim.preset.empty()) {
    engine::validate(pc.run.engine);  // with a simulator, validated once the URL is known
    warn_plain_http_secrets(pc.run.engine);
  }
  return pc;
}

const char* schedule_flag_given(const ProfFlags& f) {
  return !f.concurrency.empty()    ? "--concurrency"
         : !f.request_rate.empty() ? "--request-rate"
         : !f.rate_pattern.empty() ? "--rate-pattern"
         : f.arrival != "poisson"  ? "--arrival"
         : f.burstiness != 1.0     ? "--burstiness"
                                   : nullptr;
}

}  // namespace sb::cli
