#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Registers `servebench sim` (the simulated inference server, docs/simulator.md).
// The returned function runs it after parsing: it prints the bound URL as the first
// line of stdout once ready, serves until SIGINT/SIGTERM, and returns the exit code.
std::function<int()> add_sim_command(CLI::App& root);

}  // namespace sb::cli
