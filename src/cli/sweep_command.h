#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::plan {
class RunExecutor;
}

namespace sb::cli {

// Registers `servebench sweep`: prof's flags with lists of load levels
// (--concurrency 1,4,8,16 or --request-rate 1,2,4), a saturation search
// (--until-saturation) or a rate bisection (--rate-search LOW:HIGH); one sub-folder per run.
// `executor` (kept by the caller): where the runs happen; null: in this process.
std::function<int()> add_sweep_command(CLI::App& root, plan::RunExecutor* executor = nullptr);

}  // namespace sb::cli
