#include "metrics/energy.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sb::metrics {
namespace {

double secs(int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// The integral over [x, y] of the line through (t0, p0) and (t1, p1) (t0 < t1), x <= y.
double line_area(double t0, double p0, double t1, double p1, double x, double y) {
  auto at = [&](double t) { return p0 + (p1 - p0) * (t - t0) / (t1 - t0); };
  return (at(x) + at(y)) / 2 * (y - x);
}

// The checks of the contract before integrating: "" when the samples cover the window.
std::string coverage_problem(const PowerPoints& p, int64_t a, int64_t b, int64_t max_gap) {
  if (b <= a) return "the measured window is empty";
  const auto near = std::count_if(p.begin(), p.end(), [&](const auto& s) {
    return s.first >= a - max_gap && s.first <= b + max_gap;
  });
  if (near < 2)
    return fmt::format("{} power sample{} in or next to the measured window (2 needed)", near,
                       near == 1 ? "" : "s");
  if (p.front().first - a > max_gap)
    return fmt::format("power samples start {:.3g} s after the measured window does",
                       secs(p.front().first - a));
  if (b - p.back().first > max_gap)
    return fmt::format("power samples end {:.3g} s before the measured window does",
                       secs(b - p.back().first));
  return "";
}

}  // namespace

PowerIntegral integrate_power(PowerPoints p, int64_t a, int64_t b, int64_t max_gap) {
  PowerIntegral out;
  std::erase_if(p, [](const auto& s) { return !std::isfinite(s.second); });
  std::stable_sort(p.begin(), p.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  if (p.empty()) {
    out.reason = "no power samples";
    return out;
  }
  if (out.reason = coverage_problem(p, a, b, max_gap); !out.reason.empty()) return out;
  const double wa = secs(a), wb = secs(b);
  double energy = 0, gap = 0;
  // Held edges: the nearest sample's value.
  if (p.front().first > a) {
    energy += p.front().second * (secs(p.front().first) - wa);
    gap += secs(p.front().first) - wa;
  }
  if (p.back().first < b) {
    energy += p.back().second * (wb - secs(p.back().first));
    gap += wb - secs(p.back().first);
  }
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    const double t0 = secs(p[i].first), t1 = secs(p[i + 1].first);
    const double x = std::max(t0, wa), y = std::min(t1, wb);
    if (t1 <= t0 || y <= x) continue;
    energy += line_area(t0, p[i].second, t1, p[i + 1].second, x, y);
    if (p[i + 1].first - p[i].first > max_gap) {
      ++out.gaps;
      gap += y - x;
    }
  }
  for (size_t i = 0; i < p.size(); ++i) {
    const bool inside = p[i].first >= a && p[i].first <= b;
    const bool before = p[i].first < a && (i + 1 == p.size() || p[i + 1].first >= a);
    const bool after = p[i].first > b && (i == 0 || p[i - 1].first <= b);
    out.samples += inside || before || after;
  }
  out.gap_s = gap;
  if (gap > (wb - wa) / 2) {
    out.reason =
        fmt::format("power samples are missing for {:.3g} s of the {:.3g} s window", gap, wb - wa);
    return out;
  }
  out.energy_j = energy;
  return out;
}

std::optional<double> min_power_before(const PowerPoints& points, int64_t before_ns) {
  std::optional<double> out;
  for (const auto& [t, w] : points)
    if (t <= before_ns && std::isfinite(w)) out = out ? std::min(*out, w) : w;
  return out;
}

EnergyFigures energy_figures(double energy_j, double window_s, double output_tokens,
                             int64_t ok_requests, std::optional<int64_t> good_requests) {
  EnergyFigures f;
  f.energy_j = energy_j;
  f.mean_power_w = window_s > 0 ? energy_j / window_s : 0;
  if (output_tokens > 0) f.j_per_output_token = energy_j / output_tokens;
  if (output_tokens > 0 && energy_j > 0) f.output_tokens_per_j = output_tokens / energy_j;
  if (ok_requests > 0) f.j_per_request = energy_j / static_cast<double>(ok_requests);
  if (good_requests && energy_j > 0)
    f.goodput_per_w = static_cast<double>(*good_requests) / energy_j;
  return f;
}

EnergySummary energy_of(const EnergyInput& in) {
  EnergySummary s;
  s.source = in.source;
  const double scale = in.time_scale > 0 ? in.time_scale : 1.0;
  if (scale != 1.0) s.time_base = "model";
  s.window_s = secs(in.window_end_ns - in.window_start_ns) / scale;
  if (in.series.empty()) {
    s.reason = "no power series (no GPU telemetry and no DCGM_FI_DEV_POWER_USAGE gauge)";
    return s;
  }
  double energy = 0;
  for (const PowerSeries& ps : in.series) {
    const PowerIntegral pi =
        integrate_power(ps.points, in.window_start_ns, in.window_end_ns, in.max_gap_ns);
    if (!pi.energy_j) {
      s.reason = fmt::format("{}: {}", ps.name, pi.reason);
      return s;
    }
    energy += *pi.energy_j * ps.gpus / scale;
    ++s.series;
    s.gpus += ps.gpus;
    s.samples += pi.samples;
    s.gaps += pi.gaps;
    s.gap_s = std::max(s.gap_s, pi.gap_s / scale);
  }
  s.available = true;
  s.total = energy_figures(energy, s.window_s, in.output_tokens, in.ok_requests, in.good_requests);
  s.idle_power_w = in.idle_power_w;
  s.idle_source = in.idle_power_w ? in.idle_source : "";
  if (in.idle_power_w) {
    const double above = std::max(0.0, energy - *in.idle_power_w * s.gpus * s.window_s);
    s.above_idle =
        energy_figures(above, s.window_s, in.output_tokens, in.ok_requests, in.good_requests);
  }
  return s;
}

}  // namespace sb::metrics
