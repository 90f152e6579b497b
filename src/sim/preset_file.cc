#include "sim/preset_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "sim/params.h"

namespace sb::sim {

PresetFile read_preset_file(const std::string& path, std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw usage_error(fmt::format("sim: {} {}: {}", source, path, e.what()));
  }
  if (!root.IsMap())
    throw usage_error(
        fmt::format("sim: {} {}: expected a mapping of parameters (key: value)", source, path));
  PresetFile f;
  f.path = path;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!kv.second.IsScalar())
      throw usage_error(fmt::format("sim: {} {}: '{}' must be a scalar", source, path, key));
    if (key == "preset") {
      f.preset = kv.second.Scalar();
      continue;
    }
    if (param_name(key).empty())
      throw usage_error(fmt::format(
          "sim: {} {}: unknown key '{}' (the keys are servebench sim's flags, see sim --help)",
          source, path, key));
    f.values.emplace_back(key, kv.second.Scalar());
  }
  return f;
}

bool apply_preset_file(SimConfig& c, const PresetFile& f, std::string_view source) {
  bool threads = false;
  for (const auto& [key, value] : f.values) {
    set_param(c, key, value, fmt::format("{} {}: {}", source, f.path, key));
    threads = threads || param_name(key) == "threads";
  }
  return threads;
}

bool is_preset_file(std::string_view v) {
  return v.ends_with(".yaml") || v.ends_with(".yml") || v.find('/') != std::string_view::npos;
}

SimConfig preset_or_file_config(std::string_view preset_or_path) {
  if (!is_preset_file(preset_or_path)) return preset_config(preset_or_path);
  const PresetFile f = read_preset_file(std::string(preset_or_path));
  SimConfig c = preset_config(f.preset.value_or("tgi"));
  apply_preset_file(c, f);
  validate(c);  // the ranges, as for the same values given as flags
  return c;
}

}  // namespace sb::sim
