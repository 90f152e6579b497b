#pragma once
// The workload's one random generator: splitmix64, fully specified, so the same seed gives
// the same prompts, lengths and class mix on every platform and compiler (std::
// distributions are not portable across standard libraries).
#include <cmath>
#include <cstdint>

#include "common/splitmix64.h"

namespace sb::workload {

// A generator seeded per (seed, stream, index): items never share state, so any index can
// be produced alone, by any thread.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t index, uint64_t stream = 0) {
    state_ = seed ^ splitmix64(index);
    if (stream != 0) state_ ^= splitmix64(stream) * 0x2545F4914F6CDD1DULL;
  }
  uint64_t next() { return splitmix64_next(state_); }
  bool chance(unsigned percent) { return next() % 100 < percent; }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi] (lo <= hi).
  int64_t between(int64_t lo, int64_t hi) {
    const auto span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span == 0 ? next() : next() % span);
  }
  // Standard normal (Box-Muller).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace sb::workload
