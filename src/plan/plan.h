#pragma once
// A test plan (`servebench run plan.yaml`, docs/plans.md): providers x scenarios x stages,
// each stage one or more measured runs. Plain structs, parsed and validated once.
//
//   name: reference-study
//   providers: providers.yaml          # a file (relative to the plan) or an inline list
//   scenarios: [chat, long, mixed]     # workload presets (WorkloadConfig::scenario)
//   defaults: {api: tgi, input_length: 256, output_length: 128, warmup: 4,
//              goodput: [ttft:500, tpot:50], cooldown: 2s, sim_time_scale: 1}
//   stages:
//     - {name: baseline, kind: baseline, concurrency: 1, num_requests: 10}
//     - {name: sweep, kind: sweep, concurrency: [4, 8, 16, 32], requests_per_level: 10}
//     - {name: knee, kind: sweep, concurrency: 1, until_saturation: true}
//     - {name: ramp, kind: ramp, from: 8, to: 64, steps: 4, step_duration: 30s}
//     - {name: destructive, kind: soak, concurrency: 128, duration: 1h}
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "load/arrival_schedule.h"
#include "load/priority_mix.h"
#include "plan/providers.h"
#include "plan/saturation.h"

namespace sb::plan {

enum class StageKind { baseline, sweep, ramp, soak };
std::string_view to_string(StageKind k);

// Settings every run of the plan starts from; a stage may override the load-related ones.
struct RunDefaults {
  std::string api = "openai-chat";
  bool stream = true;
  int64_t input_length = 256;
  int64_t output_length = 128;
  bool ignore_eos = false;
  int64_t warmup = 0;                // warm-up requests per run
  std::vector<std::string> goodput;  // "ttft:500" ...
  double cooldown_s = 0;             // pause between runs (not between ramp steps)
  double sim_time_scale = 1.0;
  int workers = 0;
  uint64_t seed = 0;
  double timeout_s = 600;
  double max_error_rate = 0.05;  // a level above it is not stable (saturation search)
  // As prof's flags of the same names, for every run of the plan:
  std::optional<uint64_t> sim_seed;  // sim providers' output-text seed
  bool save_outputs = false;         // response texts in requests.jsonl (quality, agree)
  std::string dataset;               // prompts (and references) from a file, as --dataset
  int64_t batch_size = 1;  // as --batch-size: inputs per request of an embeddings / rerank run
  double telemetry_interval_ms = 1000;
  std::string gpu_telemetry = "auto";       // nvml | nvidia-smi | dcgm:URL | off | auto
  std::vector<std::string> server_metrics;  // scraped by every run (else a sim's /metrics)
  int server_pid = 0;                       // also sample this process's CPU and memory
  // The workload's shape and the users' behaviour, as prof's flags of the same names:
  std::string input_dist, output_dist;  // length specs (workload/length_spec.h)
  std::string shared_prefix;       // "prefixes=N,suffixes=M[,prefix=T][,suffix=T][,unit=chars]"
  load::PriorityMix priority_mix;  // "high:0.2,normal:0.8" (openai, openai-chat, tgi)
  double abandon_after_s = 0;      // users give up without a first token (0: never)
  load::Arrival arrival = load::Arrival::poisson;  // open-loop stages
  double burstiness = 1.0;                         // gamma's shape (1 = Poisson, < 1 burstier)
};

struct Stage {
  std::string name;
  StageKind kind = StageKind::baseline;
  // Load levels: closed-loop concurrencies or open-loop rates (one of the two).
  std::vector<int64_t> concurrency;
  std::vector<double> request_rate;
  int64_t max_concurrency = 0;  // open loop cap
  int64_t num_requests = 0;     // per run; 0: requests_per_level x level, or the duration
  int64_t requests_per_level = 0;
  double duration_s = 0;  // per run (soak: the whole soak; ramp: each step)
  std::optional<int64_t> warmup;
  std::vector<std::string> goodput;  // overrides the plan's
  std::optional<int64_t> input_length, output_length;
  // sweep: raise concurrency from concurrency[0] until saturation (saturation.h)
  bool until_saturation = false;
  SaturationOptions saturation;
  // sweep: bisection on request rate against the SLOs, in [low, high]
  std::optional<RateSearchOptions> rate_search;
  std::string where;  // FILE:LINE
};

struct Plan {
  std::string name;
  std::string file;
  std::vector<Provider> providers;
  std::vector<std::string> scenarios;  // empty: one run set with no scenario
  RunDefaults defaults;
  std::vector<Stage> stages;
};

// Loads and validates a plan file; a `providers:` string is a path relative to the plan's
// folder. Throws sb::Error(usage) "FILE:LINE:COL: FIELD: problem" for the first broken field.
Plan load_plan_file(const std::string& path);
// The same from YAML text (tests); `file` names it in messages and resolves provider paths.
Plan parse_plan(const std::string& yaml_text, const std::string& file);

}  // namespace sb::plan
