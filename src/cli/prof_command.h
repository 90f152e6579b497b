#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Registers `servebench prof`; the returned function runs it after parsing and
// returns the process exit code (see common/error.h ExitCode).
std::function<int()> add_prof_command(CLI::App& root);

}  // namespace sb::cli
