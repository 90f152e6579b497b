// servebench: benchmarks AI-model inference servers. main() chooses where measured runs
// happen (this process, or the ranks of an MPI job), parses the command line, dispatches the
// subcommand, and turns errors into exit codes.
#include <cstdio>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/agree_command.h"
#include "cli/calibrate_command.h"
#include "cli/compare_command.h"
#include "cli/monitor_command.h"
#include "cli/prof_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/sim_command.h"
#include "cli/summarize_command.h"
#include "cli/sweep_command.h"
#include "common/error.h"
#include "common/fd_limit.h"
#include "common/redact.h"
#include "plan/predict_executor.h"
#include "plan/run_executor.h"
#ifdef SERVEBENCH_MPI
#include "mpi/executor.h"
#include "mpi/launcher.h"
#include "mpi/merge_command.h"
#endif

namespace {

bool is_run_command(std::string_view sub) {
  return sub == "prof" || sub == "sweep" || sub == "run";
}

// Started by mpirun/srun for prof, sweep or run: every measured run is split over the
// ranks (mpi/executor.h). Otherwise every run happens in this process.
// `servebench predict prof|sweep|run ARGS`: that command, its runs in virtual time; argv
// loses the word "predict" (plan/predict_executor.h).
std::unique_ptr<sb::plan::RunExecutor> choose_executor(int* argc, char*** argv) {
  const std::string_view sub = *argc > 1 ? (*argv)[1] : "";
  if (sub == "predict" && *argc > 2 && is_run_command((*argv)[2])) {
    for (int i = 1; i + 1 < *argc; ++i) (*argv)[i] = (*argv)[i + 1];
    --*argc;
    return std::make_unique<sb::plan::PredictExecutor>();
  }
#ifdef SERVEBENCH_MPI
  if (sb::mpi::launched_by_mpi() && is_run_command(sub)) return sb::mpi::make_executor(argc, argv);
#endif
  return std::make_unique<sb::plan::RunExecutor>();
}

// What `servebench predict` without prof, sweep or run answers (its --help entry).
void add_predict_help(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "predict prof|sweep|run ARGS...: that command with every run in virtual time against "
      "its simulator presets (no sockets, model time; seconds for a whole study)");
  cmd->allow_extras();
  cmd->callback([] {
    throw CLI::ValidationError(
        "predict",
        "give prof, sweep or run and its flags, e.g. `servebench predict sweep --sim "
        "tgi --concurrency 1,8,64 --num-requests 200`");
  });
}

}  // namespace

int main(int argc, char** argv) {
#ifdef SERVEBENCH_MPI
  // Virtual time needs no ranks, and every rank would write the same folders.
  if (argc > 1 && std::string_view(argv[1]) == "predict" && sb::mpi::launched_by_mpi()) {
    fmt::print(stderr, "servebench: predict runs in one process; run it without mpirun/srun\n");
    return static_cast<int>(sb::ExitCode::usage);
  }
#endif
  // Every socket is a descriptor: the soft limit (often 1024) goes up to the hard limit at
  // once; each run checks what it needs against it before it sends (common/fd_limit.h).
  sb::fd::raise_descriptor_limit();
  // stdout line-buffered even into a pipe or file, so a command's tables (stdout) and the
  // status line that follows them (stderr) stay in that order in `... > log 2>&1`.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  const auto exec = choose_executor(&argc, &argv);
  CLI::App app{
      "servebench: benchmark AI-model inference servers (TGI, vLLM, OpenAI-compatible, ...)"};
  app.set_version_flag("--version", "servebench " SERVEBENCH_VERSION);
  app.require_subcommand(1);
  auto prof = sb::cli::add_prof_command(app);
  auto sweep = sb::cli::add_sweep_command(app);
  auto run = sb::cli::add_run_command(app);
  auto sim = sb::cli::add_sim_command(app);
  auto report = sb::cli::add_report_command(app);
  auto compare = sb::cli::add_compare_command(app);
  auto summarize = sb::cli::add_summarize_command(app);
  auto agree = sb::cli::add_agree_command(app);
  auto monitor = sb::cli::add_monitor_command(app);
  auto calibrate = sb::cli::add_calibrate_command(app);
  add_predict_help(app);
#ifdef SERVEBENCH_MPI
  auto merge = sb::mpi::add_merge_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank of an MPI job parsed the same command line: the leader prints.
    const int rc = exec->leader() ? app.exit(e) : e.get_exit_code();
    return rc == 0 ? 0 : static_cast<int>(sb::ExitCode::usage);
  }
  try {
    if (app.got_subcommand("prof")) return exec->run_command([&] { return prof(*exec); });
    if (app.got_subcommand("sweep")) return exec->run_command([&] { return sweep(*exec); });
    if (app.got_subcommand("run")) return exec->run_command([&] { return run(*exec); });
    if (app.got_subcommand("sim")) return sim();
    if (app.got_subcommand("report")) return report();
    if (app.got_subcommand("compare")) return compare();
    if (app.got_subcommand("summarize")) return summarize();
    if (app.got_subcommand("agree")) return agree();
    if (app.got_subcommand("monitor")) return monitor();
    if (app.got_subcommand("calibrate")) return calibrate();
#ifdef SERVEBENCH_MPI
    if (app.got_subcommand("merge")) return merge();
#endif
  } catch (const sb::Error& e) {  // every message redacted once more (URLs, queries, tokens)
    fmt::print(stderr, "servebench: {}\n", sb::redact_text(e.what()));
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "servebench: internal error: {}\n", sb::redact_text(e.what()));
    return static_cast<int>(sb::ExitCode::failure);
  }
  return 0;
}
