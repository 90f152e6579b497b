#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Exit code of `servebench compare` when a --fail-on-regression gate fails.
inline constexpr int kRegressionExitCode = 5;

// Registers `servebench compare BASELINE CANDIDATE`; the returned function runs it after
// parsing and returns the process exit code (0, or kRegressionExitCode).
std::function<int()> add_compare_command(CLI::App& root);

}  // namespace sb::cli
