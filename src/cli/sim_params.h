#pragma once
// The parameters of `servebench sim` (docs/simulator.md): each is a flag (`--max-batch-size
// 64`) and a key of the --config YAML file (`max_batch_size: 64` or `max-batch-size: 64`).
//
// Precedence, lowest first: the preset's values (or the catalog choice's, sim/catalog.h:
// --gpu, --model, --engine, --tp, --dtype) < the --config file < flags given on the command
// line. The preset itself is --preset when given, else the file's `preset:` key, else tgi. A
// catalog choice replaces the preset: with --preset or a file's `preset:` it is a usage error.
//
// Values are checked where they are read: a number outside its field's range is a usage
// error naming the range (--port 70000: "out of range 0..65535"), never wrapped; integer
// fields keep every digit (a --seed above 2^53 reaches SimConfig::server.seed exactly).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/catalog.h"
#include "sim/config.h"
#include "sim/params.h"

namespace sb::cli {

// A parameter's flag name and help (sim/params.h holds the table and the setters).
using SimParam = sim::ParamDoc;
// Every overridable parameter, in --help order.
const std::vector<SimParam>& sim_params();

// What the command line gave.
struct SimFlags {
  std::optional<std::string> preset;          // --preset, when given
  std::optional<sim::SimChoice> choice;       // --gpu/--model/--engine/--tp/--dtype, when given
  std::string config_file;                    // --config; empty: none
  std::map<std::string, std::string> values;  // flag name (sim_params()) -> value, given only
  // Network threads when neither the file nor a flag sets `threads`; 0: the preset's.
  int default_threads = 0;
};

// The effective config, by the precedence above. Does not call sim::validate. Throws
// sb::Error (usage) naming the flag or the file and key of a bad value.
sim::SimConfig resolve_sim_config(const SimFlags& flags);

}  // namespace sb::cli
