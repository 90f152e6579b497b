#pragma once
// The single clock of a run: every timestamp servebench records comes from
// std::chrono::steady_clock (monotonic), taken in the worker that owns the request. What runs
// on a schedule (run start, phases, telemetry ticks, the request log's flushes) reads it
// through the clock seam, common/time_source.h, whose default is this clock.
#include <chrono>
#include <cstdint>

namespace sb {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Nanos = std::chrono::nanoseconds;

inline double to_ms(Nanos d) { return static_cast<double>(d.count()) / 1e6; }
inline double to_s(Nanos d) { return static_cast<double>(d.count()) / 1e9; }
inline Nanos from_ms(double ms) { return Nanos(static_cast<int64_t>(ms * 1e6)); }
inline Nanos from_s(double s) { return Nanos(static_cast<int64_t>(s * 1e9)); }

}  // namespace sb
