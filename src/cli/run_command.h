#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::plan {
class RunExecutor;
}

namespace sb::cli {

// Registers `servebench run PLAN.yaml` (providers x scenarios x stages, docs/plans.md).
// The returned function runs the plan through the executor it is given (this process, or
// the ranks of an mpirun job).
std::function<int(plan::RunExecutor&)> add_run_command(CLI::App& root);

}  // namespace sb::cli
