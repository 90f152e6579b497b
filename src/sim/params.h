#pragma once
// The simulator's parameters by name: every SimConfig field a user may override, as a flag of
// `servebench sim` (`--max-batch-size 64`) and a key of a preset file (`max_batch_size: 64` or
// `max-batch-size: 64`, sim/preset_file.h). One table, read by the CLI's flags and by every
// preset-file loader (sim --config, --sim FILE, providers.yaml `sim: FILE`, calibrate).
//
// Values are checked where they are read: a number outside its field's range is a usage error
// naming the range (port 70000: "out of range 0..65535"), never wrapped; integer fields keep
// every digit (a seed above 2^53 reaches SimConfig::server.seed exactly).
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

struct ParamDoc {
  const char* name;  // flag name without "--"; the file key ('-' or '_')
  const char* help;
};
// Every overridable parameter, in --help order.
const std::vector<ParamDoc>& param_docs();

// The canonical name of `key` ('_' read as '-'), or "" when no parameter has that name.
std::string param_name(std::string_view key);

// Sets parameter `key` ('-' or '_') of `c` from its text `value`; `field` names it in error
// messages ("--port", "--config FILE: port"). Returns false, changing nothing, for an unknown
// key. Throws sb::Error (usage) naming `field` for a bad value.
bool set_param(SimConfig& c, std::string_view key, const std::string& value,
               const std::string& field);

}  // namespace sb::sim
