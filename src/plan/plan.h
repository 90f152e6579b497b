#pragma once
// A test plan (`servebench run plan.yaml`, docs/plans.md): providers x scenarios x stages,
// each stage one or more measured runs. Plain structs, parsed and validated once.
//
//   name: reference-study
//   providers: providers.yaml          # a file (relative to the plan) or an inline list
//   scenarios: [chat, long, mixed]     # workload presets (WorkloadConfig::scenario)
//   defaults: {api: tgi, input_length: 256, output_length: 128, warmup: 4,
//              goodput: [ttft:500, tpot:50], cooldown: 2s, sim_time_scale: 1}
//              # cooldown and max_error_rate are the plan's; every other key is prof's flag
//              # of that name (cli/plan_defaults.h), `stream: false` its --no-stream
//   stages:
//     - {name: baseline, kind: baseline, concurrency: 1, num_requests: 10}
//     - {name: sweep, kind: sweep, concurrency: [4, 8, 16, 32], requests_per_level: 10}
//     - {name: knee, kind: sweep, concurrency: 1, until_saturation: true}
//     - {name: ramp, kind: ramp, from: 8, to: 64, steps: 4, step_duration: 30s}
//     - {name: destructive, kind: soak, concurrency: 128, duration: 1h}
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/flag_settings.h"
#include "plan/providers.h"
#include "plan/saturation.h"

namespace sb::plan {

enum class StageKind { baseline, sweep, ramp, soak };
std::string_view to_string(StageKind k);

// Settings every run of the plan starts from; a stage may override the load-related ones.
struct RunDefaults {
  double cooldown_s = 0;         // pause between runs (not between ramp steps)
  double max_error_rate = 0.05;  // a level above it is not stable (saturation search)
  // Every other key, in the file's order; a path is made relative to the plan's folder.
  std::vector<FlagSetting> flags;
  // The setting of `key`; nullptr when the plan does not give it.
  const FlagSetting* find(std::string_view key) const { return find_setting(flags, key); }
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
// The defaults' flag settings are checked for form here (a value or a list of values, files
// that exist, one source of prompts) and by cli::read_plan_file for meaning.
Plan load_plan_file(const std::string& path);
// The same from YAML text (tests); `file` names it in messages and resolves provider paths.
Plan parse_plan(const std::string& yaml_text, const std::string& file);

}  // namespace sb::plan
