#include "cli/sim_params.h"

#include <fmt/format.h>

#include "common/error.h"
#include "sim/params.h"
#include "sim/preset_file.h"

namespace sb::cli {
namespace {

using sim::SimConfig;

// The base: the catalog choice, else the preset (tgi when none). A choice and a preset
// exclude each other (`preset_flag`: the preset came from --preset, else from the file).
SimConfig base_config(const std::optional<sim::SimChoice>& choice,
                      const std::optional<std::string>& preset, bool preset_flag) {
  if (!choice) return sim::preset_config(preset.value_or("tgi"));
  if (preset)
    throw usage_error(fmt::format(
        "sim: {} '{}' and --gpu/--model/--engine/--tp/--dtype exclude each other: the catalog "
        "choice replaces the preset (drop one of them)",
        preset_flag ? "--preset" : "the --config file's preset:", *preset));
  return sim::config_of(*choice);
}

}  // namespace

const std::vector<SimParam>& sim_params() {
  return sim::param_docs();
}

SimConfig resolve_sim_config(const SimFlags& flags) {
  const bool has_file = !flags.config_file.empty();
  const sim::PresetFile file =
      has_file ? sim::read_preset_file(flags.config_file, "--config") : sim::PresetFile{};
  std::optional<std::string> preset = flags.preset;
  if (!preset && has_file) preset = file.preset;
  SimConfig c = base_config(flags.choice, preset, flags.preset.has_value());
  const bool file_threads = has_file && sim::apply_preset_file(c, file, "--config");
  if (!file_threads && flags.values.count("threads") == 0 && flags.default_threads > 0)
    c.server.threads = flags.default_threads;
  for (const auto& [name, value] : flags.values)
    if (!sim::set_param(c, name, value, "--" + name))
      throw usage_error(fmt::format("sim: unknown parameter --{}", name));
  return c;
}

}  // namespace sb::cli
