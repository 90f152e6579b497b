#pragma once
// The shape of a run's two phases, as pure functions of its LoadConfig: what the live engine
// (engine.cc) and the virtual-time run (src/predict) both issue, defined once.
//   warm-up:  load.warmup closed-loop requests over warmup_slots() slots;
//   measured: closed loop over max_in_flight() slots, or the open-loop schedule
//             measured_schedule() capped at max_in_flight() (0: uncapped).
#include <cstdint>
#include <vector>

#include "common/clock.h"
#include "config/engine_config.h"
#include "load/arrival_schedule.h"

namespace sb::engine {

// Requests in flight at once, at most: closed loop, the concurrency; open loop, the cap
// (max_concurrency; 0 = unbounded).
int64_t max_in_flight(const LoadConfig& load);

// Slots of the warm-up: the in-flight cap, or for an uncapped open loop about one second's
// rate (1..64); never more than load.warmup.
int64_t warmup_slots(const LoadConfig& load);

// The open loop's schedule settings (rate, arrival process, burstiness, seed, rate pattern).
load::ScheduleConfig schedule_config(const LoadConfig& load);

// The measured phase's open-loop send offsets from its start: a replayed trace's
// (load.trace_offsets; the first num_requests of them when that is set), else seeded:
// num_requests of them, or enough for the expected count over the duration (rate x duration,
// or with a rate pattern rate x its integrated multiplier) when bounded by duration only.
// Empty for a closed loop.
std::vector<Nanos> measured_schedule(const LoadConfig& load);

}  // namespace sb::engine
