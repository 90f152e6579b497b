#pragma once
#include <functional>

#include <CLI/CLI.hpp>

#include "cli/prof_options.h"
#include "engine/engine.h"
#include "metrics/run_summary.h"

namespace sb::cli {

// runs/<local time>-<api>: where `prof` writes when --output-dir is not given.
std::string default_output_dir(const engine::EngineConfig& config);
// What summary.json reports about a finished `prof` run (also used by src/mpi).
metrics::RunInfo run_info(const ProfConfig& pc, const engine::RunResult& result);

// Registers `servebench prof`; the returned function runs it after parsing and
// returns the process exit code (see common/error.h ExitCode).
std::function<int()> add_prof_command(CLI::App& root);

}  // namespace sb::cli
