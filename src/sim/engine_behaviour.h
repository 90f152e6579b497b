#pragma once
// Engine behaviours as data: how a serving engine schedules (prefill mode, admission rule,
// token budgets, KV allocation, prefix caching) and what it costs besides the GPU (per-step
// and per-request CPU overheads, a serial lock), independent of the GPU and the model.
// Each behaviour writes only the scheduling fields and the overhead and efficiency fields of
// SimConfig; the catalog (GPU x model) fills the rest. docs/simulator.md cites every number.
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

// Applies the named behaviour to `c`: tgi-1.x, vllm, trtllm, pytorch, fastapi. Throws
// sb::Error(usage) for an unknown name, listing the known ones.
void apply_engine_behaviour(std::string_view engine, SimConfig& c);

// The behaviour names, in the order above.
std::vector<std::string> engine_names();

}  // namespace sb::sim
