#pragma once
// Time-varying open-loop rates (--rate-pattern): a rate shape m(t) >= 0 that multiplies the
// base rate R (--request-rate), applied to any base arrival process by a time change.
//
// The shapes (t in seconds since the measured phase's start):
//   steady:  m(t) = 1 (no pattern).
//   diurnal: m(t) = 1 + A sin(2 pi t / P), 0 <= A < 1. The mean of m over any whole period is
//            1, so the rate averaged over whole periods is R.
//   onoff:   a two-state Markov-modulated process (MMPP-2): m = 1 in "on" periods and
//            m = low (0 <= low <= 1) in "off" periods. They alternate, the first is on, and
//            each period's length is exponential with mean `on` or `off` seconds. The lengths
//            come from their own generator (std::mt19937_64 seeded with splitmix64(seed ^
//            kOnOffStream)), never from the base process's, so the base gaps are the same
//            whatever the shape's parameters. Long-run mean rate: R (on + low off) / (on + off).
//   flash:   m(t) = 1 for t < at, then 1 + (peak - 1) exp(-(t - at) / decay): a step to
//            peak x R at `at` that decays back to R with time constant `decay` (peak > 0; a
//            peak below 1 is a dip). Extra requests over the steady rate: R (peak - 1) decay.
//
// The time change: with M(t) = integral of m from 0 to t, a request whose base process
// (constant, poisson or gamma at rate R) puts it at u is sent at M^-1(u). A Poisson base
// becomes the inhomogeneous Poisson process of rate R m(t) (for onoff: the MMPP); a constant
// base stays deterministic (the i-th request at M^-1(i / R)); a gamma base keeps its
// burstiness in the shape's own clock. When m is 0 over an interval (onoff with low = 0),
// M is flat there and M^-1(u) is the start of the period where M first exceeds u: no request
// is sent in an off period.
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace sb::load {

enum class RateShape { steady, diurnal, onoff, flash };

struct RatePattern {
  RateShape shape = RateShape::steady;
  double period_s = 0;   // diurnal: P > 0
  double amplitude = 0;  // diurnal: A, 0 <= A < 1
  double on_s = 0;       // onoff: mean on period > 0
  double off_s = 0;      // onoff: mean off period > 0
  double low = 0;        // onoff: multiplier of R in off periods, 0 <= low <= 1
  double at_s = 0;       // flash: t0 >= 0
  double peak = 1;       // flash: multiplier of R at t0, > 0
  double decay_s = 0;    // flash: time constant > 0

  bool steady() const { return shape == RateShape::steady; }
};

// The accepted forms, for messages and --help.
inline constexpr std::string_view kRatePatternForms =
    "steady, diurnal:period=DUR,amplitude=A (0 <= A < 1), onoff:on=DUR,off=DUR[,low=F] "
    "(0 <= F <= 1, default 0) or flash:at=DUR,peak=F,decay=DUR (F > 0); DUR as in 30s, 10m, "
    "e.g. 'diurnal:period=600s,amplitude=0.5'";

// Parses a --rate-pattern value. Throws sb::usage_error naming --rate-pattern, the bad part
// and kRatePatternForms: unknown shape or key, a key given twice or missing, a bad number or
// duration, a value out of range.
RatePattern parse_rate_pattern(std::string_view spec);

// The canonical spec, which parse_rate_pattern reads back to the same pattern: "steady",
// "diurnal:period=600s,amplitude=0.5", "onoff:on=5s,off=10s,low=0.1",
// "flash:at=60s,peak=5,decay=30s" (numbers in their shortest form that reads back exactly,
// durations in seconds).
std::string to_string(const RatePattern& p);

// Throws sb::usage_error (as parse_rate_pattern) for a pattern out of range.
void validate(const RatePattern& p);

// The shape's clock: m(t), M(t) and M^-1(u) for one pattern and seed (onoff periods are drawn
// lazily and kept, so every query with the same seed sees the same periods).
class RateClock {
 public:
  // Validates `pattern` (throws sb::usage_error).
  RateClock(const RatePattern& pattern, uint64_t seed);

  double multiplier(double t_s);   // m(t), t >= 0
  double integrated(double t_s);   // M(t), t >= 0
  double real_time_s(double u_s);  // M^-1(u), u >= 0; non-decreasing in u
  double peak_multiplier() const;  // the largest m(t): 1 + A, 1 or max(1, peak)

 private:
  void draw_onoff_until(double t_s, double u_s);  // periods cover t_s and M covers u_s
  size_t onoff_period_of_time(double t_s);
  size_t onoff_period_of_u(double u_s);

  RatePattern p_;
  std::mt19937_64 rng_;
  // onoff: start time and M at the start of each period drawn so far (period k is on for even
  // k), with the end of the last one as a final entry.
  std::vector<double> start_t_;
  std::vector<double> start_m_;
};

}  // namespace sb::load
