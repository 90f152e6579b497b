#pragma once
// Open-loop arrival schedules: the intended send time of every request, as an
// absolute offset since the run's start, generated from a seed before or while
// the run goes (docs/architecture.md: "pre-generate a seeded schedule at absolute times").
// Senders wait until start + offset; they never sleep relative to the previous send,
// so a late send does not push back the ones after it (no coordinated omission).
//
// Request 0 is at offset 0; request i (i >= 1) is at the sum of i inter-arrival gaps:
//   constant: every gap is 1 / rate; offset i is computed as i / rate, not summed.
//   poisson:  gaps are exponential with mean 1 / rate (variance 1 / rate^2).
//   gamma:    gaps are Gamma(shape = burstiness, scale = 1 / (rate * burstiness)), as in
//             vLLM's benchmark (vllm/benchmarks/serve.py, get_request): mean 1 / rate,
//             variance 1 / (burstiness * rate^2). burstiness 1 is Poisson; < 1 is burstier;
//             > 1 is more even; +infinity is constant (vLLM special-cases it the same way).
//             Unlike vLLM we do not rescale the sampled offsets so that the last request
//             lands at n / rate: the schedule is open-ended (next()), and the achieved rate
//             is reported beside the target instead.
//
// A rate pattern (rate_pattern.h; --rate-pattern) other than steady bends this base process in
// time: the base process above, at rate R = rate_per_s, gives u_i (in whole nanoseconds, as
// below), and request i is sent at M^-1(u_i), M the integral of the pattern's multiplier
// m(t) (so the rate at t is R m(t)). Each offset is computed from its own u_i (rounded once to
// whole nanoseconds, then kept non-decreasing), never summed from the previous offset. The
// base process's draws are the same with or without a pattern; an onoff pattern draws its
// periods from its own generator. Request 0 is still at offset 0.
//
// Random gaps come from std::mt19937_64 (bit-exact across standard libraries) through
// our own inverse-CDF exponential and Marsaglia–Tsang gamma samplers rather than
// std::exponential_distribution / std::gamma_distribution, whose algorithms are
// implementation-defined; a seed gives the same schedule with any standard library
// (up to last-ulp differences of libm's log/exp/pow). Each gap is rounded to whole
// nanoseconds and summed in int64, so offsets carry no floating-point drift.
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "load/rate_pattern.h"

namespace sb::load {

enum class Arrival { constant, poisson, gamma };
std::optional<Arrival> arrival_from_string(std::string_view s);  // "constant", "poisson", "gamma"
Arrival parse_arrival(std::string_view s);  // as above; throws sb::usage_error naming the forms
std::string_view to_string(Arrival a);

struct ScheduleConfig {
  double rate_per_s = 1.0;  // target request rate; > 0 and finite
  Arrival arrival = Arrival::constant;
  double burstiness = 1.0;  // gamma shape; > 0 (+infinity: constant); used by gamma only
  uint64_t seed = 0;
  RatePattern pattern;  // the rate's shape over time (steady: rate_per_s throughout)
};

class ArrivalSchedule {
 public:
  // Throws sb::usage_error for a rate, burstiness or pattern out of range.
  explicit ArrivalSchedule(const ScheduleConfig& config);

  // The intended send offset of the next request (request 0, 1, 2, ... in turn) since
  // the run's start; non-decreasing, the first is 0.
  std::chrono::nanoseconds next();

 private:
  double gap_s();          // one random inter-arrival gap in seconds
  int64_t next_base_ns();  // the base process's next offset u_i

  ScheduleConfig config_;
  std::mt19937_64 rng_;
  std::optional<RateClock> clock_;  // set unless the pattern is steady
  uint64_t index_ = 0;              // index of the request next() returns next
  int64_t offset_ns_ = 0;           // its base offset (poisson, gamma)
  int64_t last_ns_ = 0;             // the last offset returned (patterns)
};

// The first n offsets of ArrivalSchedule(config).
std::vector<std::chrono::nanoseconds> make_schedule(const ScheduleConfig& config, size_t n);

// The expected number of requests scheduled in [0, duration): rate_per_s x M(duration), M the
// pattern's integrated multiplier (for onoff, of the periods the seed draws).
double expected_requests(const ScheduleConfig& config, std::chrono::nanoseconds duration);

// The highest rate the pattern reaches: rate_per_s x its peak multiplier.
double peak_rate_per_s(const ScheduleConfig& config);

}  // namespace sb::load
