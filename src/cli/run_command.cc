#include "cli/run_command.h"

#include <memory>

#include <fmt/format.h>

#include "cli/plan_defaults.h"
#include "cli/signals.h"
#include "common/error.h"
#include "common/wall_clock.h"
#include "plan/plan.h"
#include "plan/plan_runner.h"
#include "plan/run_executor.h"
#include "results/output_dir.h"

namespace sb::cli {
namespace {

struct RunFlags {
  std::string plan_file, output_dir;
  double sim_time_scale = 0;
  double scale = 1.0;
  bool quiet = false, check = false, overwrite = false;
};

int run_run(const RunFlags& f, plan::RunExecutor& exec) {
  const plan::PlanRuns runs = read_plan_file(f.plan_file, exec);  // predict: what it models
  const plan::Plan& p = runs.plan;
  if (f.check) {
    if (!exec.leader()) return 0;
    fmt::print("{}: valid plan '{}': {} providers, {} scenarios, {} stages\n", f.plan_file, p.name,
               p.providers.size(), p.scenarios.size(), p.stages.size());
    return 0;
  }
  if (!(f.scale > 0)) throw usage_error("--scale: must be a positive factor (e.g. 0.1)");
  plan::PlanRunOptions o;
  // Named by the leader's clock, or -o (a non-empty folder only with --overwrite).
  o.output_dir = exec.on_leader([&] {
    if (f.output_dir.empty()) return create_default_run_dir(p.name);
    results::prepare_output_dir(f.output_dir, f.overwrite);
    return f.output_dir;
  });
  if (f.sim_time_scale > 0) o.sim_time_scale = f.sim_time_scale;
  o.scale = f.scale;
  o.quiet = f.quiet;
  o.stop = exec.plan_stop(&install_stop_handlers());
  o.executor = &exec;
  return plan::run_plan(runs, o);
}

}  // namespace

std::function<int(plan::RunExecutor&)> add_run_command(CLI::App& root) {
  auto* app =
      root.add_subcommand("run", "Run a test plan: providers x scenarios x stages (docs/plans.md)");
  auto f = std::make_shared<RunFlags>();
  app->add_option("plan", f->plan_file, "Plan file (YAML)")->required();
  app->add_option("-o,--output-dir", f->output_dir,
                  "Plan folder (default runs/<time>-<plan name>); refused when not empty");
  app->add_flag("--overwrite", f->overwrite,
                "Write into a non-empty -o folder, replacing the files of an earlier plan");
  app->add_option("--sim-time-scale", f->sim_time_scale,
                  "Override the simulator time scale of sim providers (e.g. 0.05: 20x faster)");
  app->add_option(
      "--scale", f->scale,
      "Multiply every run's requests, warm-up and duration (e.g. 0.1 for a quick pass)");
  app->add_flag("--check", f->check, "Validate the plan and its providers, run nothing");
  app->add_flag("-q,--quiet", f->quiet, "Print no per-run lines nor the comparison table");
  return [f](plan::RunExecutor& exec) { return run_run(*f, exec); };
}

}  // namespace sb::cli
