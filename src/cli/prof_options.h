#pragma once
// `servebench prof` flags -> plain config (docs/architecture.md). Parsing only: no I/O
// beyond reading the files a flag names, no network.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/economics_flags.h"
#include "cli/monitor_command.h"
#include "plan/execute_run.h"

namespace sb::cli {

// Everything `prof` needs, after flags are parsed and converted: the one run's spec (target,
// load, workload, SLOs, simulator, telemetry, --max-error-rate; `dir` still empty) and how
// the command presents it. `sweep` starts from the same, per level.
struct ProfConfig {
  plan::RunSpec run;
  std::string output_dir;  // empty: runs/<timestamp>-<api>
  bool overwrite = false;  // --overwrite: a non-empty output_dir is written over
  bool quiet = false;
  bool no_progress = false;
};

// The raw flag values as CLI11 fills them (strings where units are parsed).
struct ProfFlags {
  std::string base_url, endpoint, api = "openai", model, extra_body, request_template;
  std::string stream_pointer, body_pointer;
  std::string done_pointer, usage_pointer;  // --stream-done-pointer, --stream-usage-pointer
  bool no_stream = false, ignore_eos = false, insecure = false;
  std::string ca_file, api_key_env;
  std::string api_key_file;  // a file holding the key; refused when group/world-readable
  std::vector<std::string> headers, goodput;
  std::string connect_timeout = "10s", first_token_timeout = "300s", idle_timeout = "60s",
              total_timeout = "600s", duration, bucket_interval = "1000", grace_period = "30s";
  int workers = 0;
  std::string concurrency, request_rate, arrival = "poisson", num_requests, warmup = "0",
                                         max_concurrency = "0";
  double burstiness = 1.0;
  std::string rate_pattern;   // --rate-pattern (load/rate_pattern.h); empty: steady
  std::string abandon_after;  // --abandon-after DURATION; empty: users never give up
  std::string priority_mix;   // --priority-mix CLASS:SHARE,...; empty: no priority classes
  std::string seed = "0";     // exact 64-bit (parse_uint64): CLI11 wraps -1 and overflows
  std::string input_length = "256", output_length = "128", prompt_file;
  std::string scenario, dataset,
      dataset_format = "auto", input_dist, output_dist, shared_prefix,
      tokenizer;  // workload issue 4 (src/workload, src/tokenizer; docs/workloads.md)
  bool strict = false;
  // Trace replay (workload/trace.h; docs/workloads.md): --trace FILE --trace-format F,
  // --trace-speedup X, --trace-window START:END, --trace-block-tokens B.
  std::string trace, trace_format, trace_window;
  double trace_speedup = 1.0;
  int64_t trace_block_tokens = 512;
  // Sessions (workload/session_spec.h; docs/workloads.md): --session-concurrency N, --turns SPEC,
  // --think-time SPEC, --session-header NAME; empty: not given.
  std::string session_concurrency, turns, think_time, session_header;
  // --batch-size N: inputs per embeddings request, documents per rerank request
  // (cli/pooling_flags.h).
  int64_t batch_size = 1;
  std::string output_dir, max_response_bytes = "64M", max_event_bytes = "1M";
  bool overwrite = false;
  double max_error_rate = -1;
  bool strict_client = false;
  std::string sim;
  // A catalog simulator (--sim-gpu, --sim-model, --sim-engine, --sim-tp, --sim-dtype): any of
  // them instead of --sim PRESET; the others take the catalog's defaults (sim/catalog.h).
  std::string sim_gpu, sim_model, sim_engine, sim_dtype;
  std::optional<int> sim_tp;
  double sim_time_scale = 1.0;
  std::string sim_seed;              // empty: the preset's own
  int64_t sim_reasoning_length = 0;  // --sim-reasoning-length: reasoning tokens per reply
  bool save_outputs = false;
  std::string quality_tokenize = "auto";
  bool quiet = false, no_progress = false;
  TelemetryFlags telemetry;  // --telemetry-interval, --gpu-telemetry, --server-metrics ...
  EconomicsFlags economics;  // --cost-per-hour, --instance, --idle-power-w, --hardware, ...
};

void add_prof_flags(CLI::App& app, ProfFlags& flags);
// The one conversion of the run's flags into a run (target, load, workload, SLOs, simulator,
// telemetry, economics), without requiring a target nor validating the whole: what `prof`,
// `sweep` and a plan's `defaults:` (cli/plan_defaults.h) build every run from. Throws
// sb::Error (usage) naming the flag and the fix.
plan::RunSpec to_run_settings(const ProfFlags& flags);
// prof's and sweep's: to_run_settings, a target required (--base-url or a simulator),
// --rate-pattern only with --request-rate, the whole validated (engine::validate) unless a
// simulator's URL is still to come; throws as to_run_settings does.
ProfConfig to_prof_config(const ProfFlags& flags);

// The first flag given that sets the run's own schedule (--concurrency, --request-rate,
// --rate-pattern, --arrival other than poisson, --burstiness); nullptr when none. Trace replay
// and sessions bring their own schedule and refuse these.
const char* schedule_flag_given(const ProfFlags& flags);

}  // namespace sb::cli
