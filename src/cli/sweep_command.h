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
// Every level is prof's one measured run; the returned function runs the sweep through the
// executor it is given (this process, or the ranks of an mpirun job).
std::function<int(plan::RunExecutor&)> add_sweep_command(CLI::App& root);

}  // namespace sb::cli
