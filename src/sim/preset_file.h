#pragma once
// Preset files: a YAML mapping of simulator parameters (keys = `servebench sim` flag names,
// '-' or '_', sim/params.h) on top of a base preset named by its `preset:` key (tgi when
// absent). The one loader behind `servebench sim --config FILE`, `prof`/`sweep`/`predict`
// `--sim FILE`, providers.yaml `sim: FILE` and the files `servebench calibrate` writes.
//
//   preset: tgi              # the base (sim::preset_config)
//   bandwidth_efficiency: 0.71
//   step-overhead-ms: 1.5
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

struct PresetFile {
  std::string path;
  std::optional<std::string> preset;                        // `preset:`, when given
  std::vector<std::pair<std::string, std::string>> values;  // every other key, in file order
};

// Reads `path` (a YAML mapping of scalars). `source` names the file in messages ("--config",
// "preset file"). Throws sb::Error (usage) naming the file: unreadable, not YAML, not a
// mapping, a value that is not a scalar, an unknown key (naming it).
PresetFile read_preset_file(const std::string& path, std::string_view source = "preset file");

// Sets every value of `f` on `c` (the base is the caller's). Throws sb::Error (usage) naming
// the file and key of a bad value. Returns whether `threads` was among them.
bool apply_preset_file(SimConfig& c, const PresetFile& f, std::string_view source = "preset file");

// Whether a `--sim` / `sim:` value names a preset file rather than a preset: it ends in .yaml
// or .yml, or contains '/'.
bool is_preset_file(std::string_view preset_or_path);

// The config of a preset name (sim::preset_config) or of a preset file (its base preset, then
// its values, then sim::validate). Throws sb::Error (usage) for an unknown preset, a bad file
// or a value out of range (naming its flag, as for the same value given on the command line).
SimConfig preset_or_file_config(std::string_view preset_or_path);

}  // namespace sb::sim
