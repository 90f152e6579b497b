#include "load/arrival_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "load/uniform.h"

namespace sb::load {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Standard normal (Box–Muller, one of the pair).
double standard_normal(std::mt19937_64& rng) {
  const double u1 = uniform_open01(rng);
  const double u2 = uniform_open01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// Gamma(shape, 1): Marsaglia & Tsang, "A simple method for generating gamma variables"
// (ACM TOMS 26(3), 2000), with their boost Gamma(k) = Gamma(k + 1) * U^(1/k) for k < 1.
double standard_gamma(std::mt19937_64& rng, double shape) {
  if (shape < 1.0) {
    const double boosted = standard_gamma(rng, shape + 1.0);
    return boosted * std::exp(std::log(uniform_open01(rng)) / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(rng);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = uniform_open01(rng);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

std::optional<Arrival> arrival_from_string(std::string_view s) {
  if (s == "constant") return Arrival::constant;
  if (s == "poisson") return Arrival::poisson;
  if (s == "gamma") return Arrival::gamma;
  return std::nullopt;
}

Arrival parse_arrival(std::string_view s) {
  if (auto a = arrival_from_string(s)) return *a;
  throw usage_error(fmt::format("invalid arrival \"{}\": expected constant, poisson or gamma", s));
}

std::string_view to_string(Arrival a) {
  switch (a) {
    case Arrival::constant:
      return "constant";
    case Arrival::poisson:
      return "poisson";
    case Arrival::gamma:
      return "gamma";
  }
  return "?";
}

ArrivalSchedule::ArrivalSchedule(const ScheduleConfig& config)
    : config_(config), rng_(config.seed) {
  // The lower bound keeps every offset of a long run far inside int64 nanoseconds.
  if (!(config.rate_per_s >= 1e-6) || !std::isfinite(config.rate_per_s)) {
    throw usage_error(fmt::format(
        "invalid request rate {}: expected a finite number of requests per second >= 1e-6",
        config.rate_per_s));
  }
  if (config.arrival == Arrival::gamma && !(config.burstiness > 0)) {
    throw usage_error(fmt::format(
        "invalid burstiness {}: expected a number > 0 (1 = Poisson, < 1 burstier, > 1 more even)",
        config.burstiness));
  }
  if (config_.arrival == Arrival::gamma && std::isinf(config_.burstiness)) {
    config_.arrival = Arrival::constant;  // Gamma with infinite shape: every gap is 1 / rate
  }
  if (!config_.pattern.steady()) clock_.emplace(config_.pattern, config_.seed);
}

double ArrivalSchedule::gap_s() {
  const double mean_s = 1.0 / config_.rate_per_s;
  if (config_.arrival == Arrival::poisson) return -std::log(uniform_open01(rng_)) * mean_s;
  // gamma: shape k = burstiness, scale theta = 1 / (rate * k)
  const double k = config_.burstiness;
  return standard_gamma(rng_, k) * (mean_s / k);
}

int64_t ArrivalSchedule::next_base_ns() {
  const uint64_t i = index_++;
  if (config_.arrival == Arrival::constant) {
    // From i directly, in long double, rounded once: no accumulated error.
    const long double ns = static_cast<long double>(i) * 1e9L / config_.rate_per_s;
    return std::llround(ns);
  }
  const int64_t offset = offset_ns_;
  offset_ns_ += std::llround(gap_s() * 1e9);
  return offset;
}

std::chrono::nanoseconds ArrivalSchedule::next() {
  const int64_t u_ns = next_base_ns();
  if (!clock_) return std::chrono::nanoseconds(u_ns);
  const double t_s = clock_->real_time_s(static_cast<double>(u_ns) / 1e9);
  last_ns_ = std::max(last_ns_, static_cast<int64_t>(std::llround(t_s * 1e9)));
  return std::chrono::nanoseconds(last_ns_);
}

std::vector<std::chrono::nanoseconds> make_schedule(const ScheduleConfig& config, size_t n) {
  ArrivalSchedule schedule(config);
  std::vector<std::chrono::nanoseconds> offsets;
  offsets.reserve(n);
  for (size_t i = 0; i < n; ++i) offsets.push_back(schedule.next());
  return offsets;
}

}  // namespace sb::load

namespace sb::load {

double expected_requests(const ScheduleConfig& config, std::chrono::nanoseconds duration) {
  const double t_s = static_cast<double>(duration.count()) / 1e9;
  if (config.pattern.steady()) return config.rate_per_s * t_s;
  return config.rate_per_s * RateClock(config.pattern, config.seed).integrated(t_s);
}

double peak_rate_per_s(const ScheduleConfig& config) {
  if (config.pattern.steady()) return config.rate_per_s;
  return config.rate_per_s * RateClock(config.pattern, config.seed).peak_multiplier();
}

}  // namespace sb::load
