#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Registers `servebench run PLAN.yaml` (providers x scenarios x stages, docs/plans.md).
std::function<int()> add_run_command(CLI::App& root);

}  // namespace sb::cli
