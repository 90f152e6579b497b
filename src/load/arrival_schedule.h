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
};

class ArrivalSchedule {
 public:
  // Throws sb::usage_error for a rate or burstiness out of range.
  explicit ArrivalSchedule(const ScheduleConfig& config);

  // The intended send offset of the next request (request 0, 1, 2, ... in turn) since
  // the run's start; non-decreasing, the first is 0.
  std::chrono::nanoseconds next();

 private:
  double gap_s();  // one random inter-arrival gap in seconds

  ScheduleConfig config_;
  std::mt19937_64 rng_;
  uint64_t index_ = 0;     // index of the request next() returns next
  int64_t offset_ns_ = 0;  // its offset (poisson, gamma)
};

// The first n offsets of ArrivalSchedule(config).
std::vector<std::chrono::nanoseconds> make_schedule(const ScheduleConfig& config, size_t n);

}  // namespace sb::load
