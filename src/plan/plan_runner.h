#pragma once
// Runs a plan (`servebench run`) or one stage for one target (`servebench sweep`): every run
// in its own sub-folder, index.json / index.csv rewritten after each (plan_index.h).
// A failing run is recorded (status failed, its error) and the plan goes on with the next
// provider when the target is dead (launch failed, unreachable), else with the next run;
// completed runs are always kept. The exit code is the first failure's (0: all ok).
// Runs happen through a RunExecutor (run_executor.h): this process by default, or split over
// the ranks of an mpirun job, where every rank calls run_plan / run_stage alike.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "plan/execute_run.h"
#include "plan/plan.h"
#include "plan/plan_index.h"
#include "plan/run_executor.h"

namespace sb::plan {

struct PlanRunOptions {
  std::string output_dir;
  std::optional<double> sim_time_scale;  // overrides the plan's (sim providers)
  double scale = 1.0;                    // multiplies every run's requests, warm-up, duration
  bool quiet = false;
  const std::atomic<bool>* stop = nullptr;
  RunExecutor* executor = nullptr;  // null: every run in this process
};

// A plan ready to run: bases[i] is plan.providers[i]'s run as the plan's defaults give it,
// read as prof reads its flags (cli/plan_defaults.h), before a stage sets its load; the
// provider's target (URL or simulator) is set on it at run time.
struct PlanRuns {
  Plan plan;
  std::vector<RunSpec> bases;
};

// Returns the exit code. Throws sb::Error(usage) for an output folder that cannot be used.
int run_plan(const PlanRuns& runs, const PlanRunOptions& options);

// One stage against one target (shared by `run` and `sweep`).
struct StageTarget {
  RunSpec base;  // engine defaults (warm-up included), slo, provider or sim preset
  std::string provider, scenario;
  std::optional<double> cold_start_s;
  double max_error_rate = 0.05;
};

struct StageRunContext {
  std::string out_dir;
  std::string folder_prefix;  // sub-folder name = prefix + level tag (c16, r2.5)
  int runs_done = 0;          // across the plan, for the cool-down
  double cooldown_s = 0;
  double scale = 1.0;
  bool quiet = false;
  const std::atomic<bool>* stop = nullptr;
  PlanIndex* index = nullptr;       // written by the executor's leader only
  RunExecutor* executor = nullptr;  // null: every run in this process
  int first_failure = 0;            // exit code of the first failed run
  bool target_dead = false;         // unreachable: skip the target's remaining runs
};

void run_stage(const Stage& stage, const StageTarget& target, StageRunContext& ctx);

}  // namespace sb::plan
