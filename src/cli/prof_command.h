#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::plan {
class RunExecutor;
}

namespace sb::cli {

// Registers `servebench prof`: one measured run (a one-run plan, plan/execute_run.h) through
// the executor the caller passes when it runs (this process, or the ranks of an mpirun job).
// The returned function returns the process exit code (see common/error.h ExitCode).
std::function<int(plan::RunExecutor&)> add_prof_command(CLI::App& root);

}  // namespace sb::cli
