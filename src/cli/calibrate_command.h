#pragma once
// `servebench calibrate RUN_DIR... [--preset BASE] -o FIT.yaml`: fits a simulator preset to
// measured runs of one server at several load levels (src/calibrate/calibrate.h) and writes
//   FIT.yaml                 a preset file (`servebench sim --config FIT.yaml`, `--sim FIT.yaml`)
//   FIT.residuals.json       the error table as numbers (calibrate/fit_output.h)
// and prints the error table. RUN_DIR is a run folder (summary.json + requests.jsonl), or a
// sweep's or plan's output folder, read as the run folders directly inside it. BASE is a preset
// name or a preset file (default tgi). Bad input is a usage error (exit 2): runs of different
// workloads, fewer than 3 load levels, folders without requests.jsonl.
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

std::function<int()> add_calibrate_command(CLI::App& root);

}  // namespace sb::cli
