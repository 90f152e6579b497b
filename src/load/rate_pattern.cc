#include "load/rate_pattern.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/splitmix64.h"
#include "common/units.h"
#include "load/uniform.h"

namespace sb::load {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr uint64_t kOnOffStream = 0x6f6e6f6666ULL;  // "onoff": the periods' own stream

[[noreturn]] void fail(std::string_view spec, std::string_view why) {
  throw usage_error(
      fmt::format("--rate-pattern '{}': {}; expected {}", spec, why, kRatePatternForms));
}

// A plain non-negative finite number, the whole of `text`.
bool parse_number(std::string_view text, double& out) {
  if (text.empty() || !(text.front() == '.' || (text.front() >= '0' && text.front() <= '9')))
    return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out, std::chars_format::general);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

// The keys of one shape, each read once.
class Params {
 public:
  Params(std::string_view spec, std::string_view shape, std::string_view list) : spec_(spec) {
    while (!list.empty()) {
      const size_t comma = list.find(',');
      const std::string_view item = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        fail(spec, fmt::format("'{}' is not KEY=VALUE", item));
      const std::string key(item.substr(0, eq));
      if (!values_.emplace(key, item.substr(eq + 1)).second)
        fail(spec, fmt::format("{} is given twice", key));
      if (comma != std::string_view::npos && list.empty()) fail(spec, "a trailing ','");
    }
    shape_ = shape;
  }

  double duration_s(const std::string& key) {
    const double s = instant_s(key);
    if (!(s > 0)) fail(spec_, fmt::format("{} must be longer than 0", key));
    return s;
  }
  // A duration that may be 0 (flash's at).
  double instant_s(const std::string& key) {
    const std::string_view v = take(key);
    bool ok = true;
    double s = 0;
    try {
      s = parse_duration_s(v);
    } catch (const Error&) {
      ok = false;
    }
    if (!ok) fail(spec_, fmt::format("{}={} is not a duration", key, v));
    return s;
  }
  double number(const std::string& key) { return number_of(key, take(key)); }
  double number_or(const std::string& key, double fallback) {
    if (!values_.contains(key)) return fallback;
    return number(key);
  }
  // Every key was read: any left is unknown to the shape.
  void done() const {
    if (!values_.empty())
      fail(spec_, fmt::format("{} has no key '{}'", shape_, values_.begin()->first));
  }

 private:
  std::string_view take(const std::string& key) {
    const auto it = values_.find(key);
    if (it == values_.end()) fail(spec_, fmt::format("{} needs {}=", shape_, key));
    const std::string_view v = it->second;
    values_.erase(it);
    return v;
  }
  double number_of(const std::string& key, std::string_view v) const {
    double x = 0;
    if (!parse_number(v, x)) fail(spec_, fmt::format("{}={} is not a number", key, v));
    return x;
  }

  std::string_view spec_;
  std::string_view shape_;
  std::map<std::string, std::string_view> values_;
};

// The root of F(t) = u on [lo, hi] for an increasing F with derivative f > 0: Newton's steps,
// falling back to bisection whenever a step leaves the bracket; accurate far below 1 ns.
template <class Integral, class Rate>
double invert(Integral F, Rate f, double u, double lo, double hi, double guess) {
  double t = std::clamp(guess, lo, hi);
  for (int i = 0; i < 200; ++i) {
    const double g = F(t) - u;
    if (g == 0) return t;
    if (g > 0)
      hi = t;
    else
      lo = t;
    const double d = f(t);
    double next = d > 0 ? t - g / d : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const double tol = 1e-13 * std::max(1.0, std::fabs(t));
    if (std::fabs(next - t) <= tol || hi - lo <= tol) return next;
    t = next;
  }
  return t;
}

std::string seconds(double s) {
  return fmt::format("{}s", s);
}

// Why `p` is out of range; empty when it is not.
std::string range_problem(const RatePattern& p) {
  switch (p.shape) {
    case RateShape::steady:
      return {};
    case RateShape::diurnal:
      if (!(p.period_s > 0) || !std::isfinite(p.period_s)) return "period must be longer than 0";
      if (!(p.amplitude >= 0 && p.amplitude < 1))
        return "amplitude must be >= 0 and < 1 (the rate must stay above 0)";
      return {};
    case RateShape::onoff:
      if (!(p.on_s > 0) || !std::isfinite(p.on_s)) return "on must be longer than 0";
      if (!(p.off_s > 0) || !std::isfinite(p.off_s)) return "off must be longer than 0";
      if (!(p.low >= 0 && p.low <= 1)) return "low must be between 0 and 1";
      return {};
    case RateShape::flash:
      if (!(p.at_s >= 0) || !std::isfinite(p.at_s)) return "at must be >= 0";
      if (!(p.peak > 0) || !std::isfinite(p.peak)) return "peak must be > 0";
      if (!(p.decay_s > 0) || !std::isfinite(p.decay_s)) return "decay must be longer than 0";
      return {};
  }
  return "unknown shape";
}

}  // namespace

void validate(const RatePattern& p) {
  if (const std::string why = range_problem(p); !why.empty()) fail(to_string(p), why);
}

RatePattern parse_rate_pattern(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view shape = spec.substr(0, colon);
  const std::string_view list =
      colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
  RatePattern p;
  if (shape == "steady") {
    if (colon != std::string_view::npos) fail(spec, "steady takes no parameters");
    return p;
  }
  if (shape != "diurnal" && shape != "onoff" && shape != "flash")
    fail(spec, fmt::format("unknown pattern '{}'", shape));
  if (list.empty()) fail(spec, fmt::format("{} needs parameters", shape));
  Params params(spec, shape, list);
  if (shape == "diurnal") {
    p.shape = RateShape::diurnal;
    p.period_s = params.duration_s("period");
    p.amplitude = params.number("amplitude");
  } else if (shape == "onoff") {
    p.shape = RateShape::onoff;
    p.on_s = params.duration_s("on");
    p.off_s = params.duration_s("off");
    p.low = params.number_or("low", 0.0);
  } else {
    p.shape = RateShape::flash;
    p.at_s = params.instant_s("at");
    p.peak = params.number("peak");
    p.decay_s = params.duration_s("decay");
  }
  params.done();
  if (const std::string why = range_problem(p); !why.empty()) fail(spec, why);
  return p;
}

std::string to_string(const RatePattern& p) {
  switch (p.shape) {
    case RateShape::steady:
      return "steady";
    case RateShape::diurnal:
      return fmt::format("diurnal:period={},amplitude={}", seconds(p.period_s), p.amplitude);
    case RateShape::onoff:
      return fmt::format("onoff:on={},off={},low={}", seconds(p.on_s), seconds(p.off_s), p.low);
    case RateShape::flash:
      return fmt::format("flash:at={},peak={},decay={}", seconds(p.at_s), p.peak,
                         seconds(p.decay_s));
  }
  return "?";
}

RateClock::RateClock(const RatePattern& pattern, uint64_t seed)
    : p_(pattern), rng_(splitmix64(seed ^ kOnOffStream)) {
  validate(p_);
  if (p_.shape == RateShape::onoff) {
    start_t_ = {0.0};
    start_m_ = {0.0};
  }
}

double RateClock::peak_multiplier() const {
  switch (p_.shape) {
    case RateShape::diurnal:
      return 1 + p_.amplitude;
    case RateShape::flash:
      return std::max(1.0, p_.peak);
    default:
      return 1;
  }
}

void RateClock::draw_onoff_until(double t_s, double u_s) {
  // Until a period ends after t_s and M at its end exceeds u_s.
  while (start_t_.size() < 2 || start_t_.back() <= t_s || start_m_.back() <= u_s) {
    const size_t k = start_t_.size() - 1;  // the period being drawn
    const bool on = k % 2 == 0;
    const double length = -std::log(uniform_open01(rng_)) * (on ? p_.on_s : p_.off_s);
    start_t_.push_back(start_t_.back() + length);
    start_m_.push_back(start_m_.back() + length * (on ? 1.0 : p_.low));
  }
}

size_t RateClock::onoff_period_of_time(double t_s) {
  draw_onoff_until(t_s, -1);
  // The last start <= t_s.
  return static_cast<size_t>(std::upper_bound(start_t_.begin(), start_t_.end(), t_s) -
                             start_t_.begin()) -
         1;
}

size_t RateClock::onoff_period_of_u(double u_s) {
  draw_onoff_until(-1, u_s);
  // The period k with start_m_[k] <= u < start_m_[k + 1] (an empty one is never it).
  return static_cast<size_t>(std::upper_bound(start_m_.begin(), start_m_.end(), u_s) -
                             start_m_.begin()) -
         1;
}

double RateClock::multiplier(double t_s) {
  switch (p_.shape) {
    case RateShape::steady:
      return 1;
    case RateShape::diurnal:
      return 1 + p_.amplitude * std::sin(2 * kPi * t_s / p_.period_s);
    case RateShape::onoff:
      return onoff_period_of_time(t_s) % 2 == 0 ? 1.0 : p_.low;
    case RateShape::flash:
      return t_s < p_.at_s ? 1.0 : 1 + (p_.peak - 1) * std::exp(-(t_s - p_.at_s) / p_.decay_s);
  }
  return 1;
}

double RateClock::integrated(double t_s) {
  switch (p_.shape) {
    case RateShape::steady:
      return t_s;
    case RateShape::diurnal: {
      // Whole periods contribute exactly their length; the rest within one period.
      const double P = p_.period_s;
      const double k = std::floor(t_s / P);
      const double r = t_s - k * P;
      return k * P + r + p_.amplitude * P / (2 * kPi) * (1 - std::cos(2 * kPi * r / P));
    }
    case RateShape::onoff: {
      const size_t k = onoff_period_of_time(t_s);
      return start_m_[k] + (t_s - start_t_[k]) * (k % 2 == 0 ? 1.0 : p_.low);
    }
    case RateShape::flash: {
      if (t_s <= p_.at_s) return t_s;
      const double s = t_s - p_.at_s;
      return t_s + (p_.peak - 1) * p_.decay_s * -std::expm1(-s / p_.decay_s);
    }
  }
  return t_s;
}

double RateClock::real_time_s(double u_s) {
  switch (p_.shape) {
    case RateShape::steady:
      return u_s;
    case RateShape::diurnal: {
      const double P = p_.period_s;
      const double A = p_.amplitude;
      const double k = std::floor(u_s / P);  // M(kP) = kP
      const double r = u_s - k * P;
      const auto F = [&](double x) {
        return x + A * P / (2 * kPi) * (1 - std::cos(2 * kPi * x / P));
      };
      const auto f = [&](double x) { return 1 + A * std::sin(2 * kPi * x / P); };
      // m lies in [1 - A, 1 + A], so the root lies in [r / (1 + A), r / (1 - A)].
      return k * P + invert(F, f, r, r / (1 + A), std::min(P, r / (1 - A)), r);
    }
    case RateShape::onoff: {
      const size_t k = onoff_period_of_u(u_s);
      const double m = k % 2 == 0 ? 1.0 : p_.low;  // > 0: an empty period is never k
      return start_t_[k] + (u_s - start_m_[k]) / m;
    }
    case RateShape::flash: {
      if (u_s <= p_.at_s) return u_s;
      const double v = u_s - p_.at_s;
      const double a = p_.peak - 1;
      const double tau = p_.decay_s;
      const auto G = [&](double s) { return s + a * tau * -std::expm1(-s / tau); };
      const auto g = [&](double s) { return 1 + a * std::exp(-s / tau); };
      const double lo = v / std::max(1.0, p_.peak);
      const double hi = v / std::min(1.0, p_.peak);
      return p_.at_s + invert(G, g, v, lo, hi, v / p_.peak);
    }
  }
  return u_s;
}

}  // namespace sb::load
