#pragma once
// What `servebench calibrate` writes and prints for a FitResult:
//   - preset_yaml: FIT.yaml, a preset file (sim/preset_file.h) loadable by `servebench sim
//     --config FIT.yaml` and `--sim FIT.yaml`: `preset:` = the base preset, the base file's
//     own values (when the base was a file), then every fitted parameter; a comment header
//     names the runs it was fitted on and the fit's residuals;
//   - residuals_json: FIT.residuals.json, every figure of the error table as numbers;
//   - error_table: the text table printed on stdout.
// Errors are relative (predicted / measured - 1), written as fractions in the JSON and as
// percentages in the text.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/calibrate.h"

namespace sb::calibrate {

// Where the fit started: a preset name, or a preset file's base preset and values.
struct BaseOrigin {
  std::string label;   // as given to --preset ("tgi", "base.yaml")
  std::string preset;  // the preset the file builds on ("tgi")
  std::vector<std::pair<std::string, std::string>> values;  // the file's values; none for a name
};

std::string preset_yaml(const FitResult& fit, const BaseOrigin& base);
nlohmann::json residuals_json(const FitResult& fit, const BaseOrigin& base);
std::string error_table(const FitResult& fit);

}  // namespace sb::calibrate
