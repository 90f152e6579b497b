#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Exit code of `servebench agree` when a --fail-below gate fails (compare's is 5).
inline constexpr int kAgreementExitCode = 6;

// Registers `servebench agree RUN_A RUN_B`: output agreement of two runs of the same prompts
// (quality/agreement.h); the returned function runs it and returns the exit code (0, or
// kAgreementExitCode). Refuses, with an sb::Error naming the fix, runs made without
// --save-outputs and runs whose prompts differ.
std::function<int()> add_agree_command(CLI::App& root);

}  // namespace sb::cli
