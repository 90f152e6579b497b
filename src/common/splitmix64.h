#pragma once
// splitmix64, the project's one 64-bit mixer: fully specified (no std:: distribution or
// engine), so the same seed gives the same values on every platform and compiler. Used by
// the workload's generator (workload/rng.h), the load balancer's random pick
// (engine/endpoint_picker.cc) and the simulator's output text (sim/api.cc).
#include <cstdint>

namespace sb {

// One step of the generator: advances `state` by the golden-ratio increment and returns the
// mix of the new state.
inline uint64_t splitmix64_next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The same step as a stateless hash of `x`: splitmix64_next on a copy of x.
inline uint64_t splitmix64(uint64_t x) {
  return splitmix64_next(x);
}

}  // namespace sb
