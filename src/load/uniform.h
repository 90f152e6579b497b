#pragma once
// The one uniform draw of the arrival schedules (arrival_schedule.cc, rate_pattern.cc): fully
// specified from std::mt19937_64's output, unlike std::uniform_real_distribution.
#include <random>

namespace sb::load {

// Uniform on the open interval (0, 1) from the top 53 bits of one draw.
inline double uniform_open01(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace sb::load
