// servebench: benchmarks AI-model inference servers. main() parses the command
// line, dispatches the subcommand, and turns errors into exit codes.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/compare_command.h"
#include "cli/prof_command.h"
#include "cli/report_command.h"
#include "cli/sim_command.h"
#include "cli/summarize_command.h"
#include "common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"servebench: benchmark AI-model inference servers (TGI, vLLM, OpenAI-compatible, ...)"};
  app.set_version_flag("--version", "servebench " SERVEBENCH_VERSION);
  app.require_subcommand(1);
  auto prof = sb::cli::add_prof_command(app);
  auto sim = sb::cli::add_sim_command(app);
  auto report = sb::cli::add_report_command(app);
  auto compare = sb::cli::add_compare_command(app);
  auto summarize = sb::cli::add_summarize_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(sb::ExitCode::usage);
  }
  try {
    if (app.got_subcommand("prof")) return prof();
    if (app.got_subcommand("sim")) return sim();
    if (app.got_subcommand("report")) return report();
    if (app.got_subcommand("compare")) return compare();
    if (app.got_subcommand("summarize")) return summarize();
  } catch (const sb::Error& e) {
    fmt::print(stderr, "servebench: {}\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "servebench: internal error: {}\n", e.what());
    return static_cast<int>(sb::ExitCode::failure);
  }
  return 0;
}
