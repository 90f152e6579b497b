#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

// Registers `servebench report PATH... -o report.html`; the returned function runs it after
// parsing and returns the process exit code.
std::function<int()> add_report_command(CLI::App& root);

}  // namespace sb::cli
