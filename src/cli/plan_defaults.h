#pragma once
// A plan's `defaults:` (and a provider's `flags:`, read after them for its runs) are `prof`'s
// flags by their names, underscores for dashes (`input_dist: ...` is --input-dist,
// `header: [...]` is -H once per item, `stream: false` is --no-stream): parsed by prof's own
// flag parser and converted by prof's own function (prof_options.h to_run_settings), once per
// provider, so that a plan's run is the run `prof` makes of the same flags. Not settings
// (plan/flag_settings.h refuses them, saying where they belong): a stage's load, a provider's
// target, the command's output flags, trace and session schedules. The plan's own defaults:
// cooldown, max_error_rate.
#include <string>

#include "plan/plan_runner.h"

namespace sb::cli {

// plan::load_plan_file, then every provider's base run from the defaults, checked as `exec`
// runs them (`predict run`: only simulators, only what virtual time models). Throws sb::Error
// (usage) "FILE:LINE:COL: defaults.KEY: prof's message" at the first setting that is not one of
// prof's flags or that makes the run invalid (checked with each provider's API and simulator;
// " (provider ID)" ends the message when the plan has several), "PROVIDER_WHERE: provider 'ID':
// ..." when the provider cannot run whatever the defaults.
plan::PlanRuns read_plan_file(const std::string& path,
                              const plan::RunExecutor& exec = plan::RunExecutor());
// The same from YAML text (tests); `file` names it in messages and resolves relative paths.
plan::PlanRuns read_plan(const std::string& yaml_text, const std::string& file,
                         const plan::RunExecutor& exec = plan::RunExecutor());
// The bases of a parsed plan (what the two above add to plan::parse_plan).
plan::PlanRuns plan_runs_of(plan::Plan plan, const plan::RunExecutor& exec);

}  // namespace sb::cli
