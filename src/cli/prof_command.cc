#include "cli/prof_command.h"

#include <memory>

#include <fmt/format.h>

#include "cli/prof_options.h"
#include "cli/signals.h"
#include "common/redact.h"
#include "common/wall_clock.h"
#include "plan/run_executor.h"
#include "report/terminal_summary.h"
#include "results/output_dir.h"

namespace sb::cli {
namespace {

int run_prof(const ProfFlags& flags, plan::RunExecutor& exec) {
  ProfConfig pc = to_prof_config(flags);
  plan::RunSpec& spec = pc.run;
  // The folder, named and created by the leader (runs/<time>-<api> unless -o; a non-empty
  // -o folder only with --overwrite).
  spec.dir = exec.on_leader([&] {
    if (pc.output_dir.empty())
      return create_default_run_dir(std::string(protocol::to_string(spec.engine.adapter.api)));
    results::prepare_output_dir(pc.output_dir, pc.overwrite);
    return pc.output_dir;
  });
  if (!exec.leader()) spec.print_progress = false;
  const plan::RunOutcome out = exec.execute(spec, exec.plan_stop(&install_stop_handlers()));
  if (!exec.leader()) return 0;
  if (out.summary) {
    if (!pc.quiet) fmt::print("{}\n", report::format_terminal_summary(*out.summary));
    fmt::print(stderr, "servebench: results in {}/ (summary.json, summary.csv, requests.jsonl)\n",
               spec.dir);
  }
  if (out.exit_code != 0) fmt::print(stderr, "servebench: {}\n", redact_text(out.error));
  return out.exit_code;
}

}  // namespace

std::function<int(plan::RunExecutor&)> add_prof_command(CLI::App& root) {
  auto* app = root.add_subcommand("prof", "Benchmark one inference endpoint");
  auto flags = std::make_shared<ProfFlags>();
  add_prof_flags(*app, *flags);
  auto list = std::make_shared<bool>(false);
  app->add_flag("--list-instances", *list,
                "Print the price table of --instance (its date and source) and exit");
  return [flags, list](plan::RunExecutor& exec) {
    if (*list) {
      if (exec.leader()) fmt::print("{}", instance_table_text());
      return 0;
    }
    return run_prof(*flags, exec);
  };
}

}  // namespace sb::cli
