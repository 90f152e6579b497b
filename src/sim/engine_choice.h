#pragma once
// The engine part of a catalog choice (sim/catalog.h): the known engine names and the call
// into the engine behaviours (sim/engine_behaviour.h: tgi-1.x, vllm, trtllm, pytorch,
// fastapi), which set the scheduling section of SimConfig.
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

// The engines a catalog choice accepts (sim::engine_names()).
std::vector<std::string> known_engines();
// `name` as the engine table spells it, matched case-insensitively ("TGI" and "tgi" are
// tgi-1.x). Throws sb::Error(usage) "unknown engine 'X' (known: ...)".
std::string canonical_engine(std::string_view name);
// Applies the engine's behaviour to `c` (sim::apply_engine_behaviour).
void apply_engine(std::string_view engine, SimConfig& c);

}  // namespace sb::sim
