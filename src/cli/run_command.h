#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::plan {
class RunExecutor;
}

namespace sb::cli {

// Registers `servebench run PLAN.yaml` (providers x scenarios x stages, docs/plans.md).
// `executor` (kept by the caller): where the runs happen; null: in this process.
std::function<int()> add_run_command(CLI::App& root, plan::RunExecutor* executor = nullptr);

}  // namespace sb::cli
