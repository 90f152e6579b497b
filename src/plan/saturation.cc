#include "plan/saturation.h"

#include <algorithm>
#include <cmath>

#include "report/load_rules.h"

namespace sb::plan {
namespace {

// The report's definition (report/load_rules.h); a failed level has no measurement.
bool stable(const LevelMeasure& m, double max_error_rate) {
  return !m.failed && report::stable_load(1, m.slo_ok, m.error_rate, max_error_rate);
}

void finish(SaturationResult& r, double max_error_rate) {
  for (const auto& p : r.points) {
    if (p.failed) continue;
    if (!p.sustained) r.one_wave.push_back(p.level);
    if (p.sustained && p.qps > r.peak_qps) {
      r.peak_qps = p.qps;
      r.peak_level = p.level;
    }
    if (stable(p, max_error_rate) && (!r.max_stable || p.level > *r.max_stable))
      r.max_stable = p.level;
  }
}

}  // namespace

SaturationResult search_saturation(double start, const SaturationOptions& o,
                                   const MeasureFn& measure) {
  SaturationResult r;
  std::vector<double> levels = o.levels;
  if (levels.empty()) {
    const double factor = o.factor > 1 ? o.factor : 2.0;
    for (double l = std::max(1.0, start); l <= o.max_level + 1e-9; l = std::round(l * factor))
      levels.push_back(l);
  }
  r.stop_reason = "max_level";
  std::optional<LevelMeasure> prev;  // the last sustained level measured
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto m = measure(levels[i]);
    if (!m) {
      r.stop_reason = "interrupted";
      break;
    }
    r.points.push_back(*m);
    if (m->failed) {
      r.stop_reason = "failed";
      break;
    }
    if (m->error_rate > o.max_error_rate) {
      r.stop_reason = "errors";
      break;
    }
    if (!m->slo_ok) {
      r.stop_reason = "slo";
      break;
    }
    if (!m->sustained) continue;
    if (prev && report::saturated(prev->qps, prev->latency_ms, m->qps, m->latency_ms,
                                  report::PlateauRule{o.min_gain, o.latency_climb})) {
      r.knee = prev->level;
      r.stop_reason = "saturated";
      break;
    }
    prev = *m;
  }
  finish(r, o.max_error_rate);
  return r;
}

RateSearchResult bisect_rate(const RateSearchOptions& o, const MeasureFn& measure) {
  RateSearchResult r;
  auto run = [&](double rate) -> std::optional<LevelMeasure> {
    auto m = measure(rate);
    if (m) r.points.push_back(*m);
    return m;
  };
  auto hi_m = run(o.high);
  if (!hi_m) return r.stop_reason = "interrupted", r;
  if (stable(*hi_m, o.max_error_rate)) {
    r.max_stable_rate = o.high;
    r.stop_reason = "high_ok";
    return r;
  }
  auto lo_m = run(o.low);
  if (!lo_m) return r.stop_reason = "interrupted", r;
  if (!stable(*lo_m, o.max_error_rate)) {
    r.stop_reason = lo_m->failed ? "failed" : "low_fails";
    return r;
  }
  double lo = o.low, hi = o.high;
  for (int i = 0; i < o.steps; ++i) {
    const double mid = (lo + hi) / 2;
    auto m = run(mid);
    if (!m) return r.max_stable_rate = lo, r.stop_reason = "interrupted", r;
    if (stable(*m, o.max_error_rate))
      lo = mid;
    else
      hi = mid;
  }
  r.max_stable_rate = lo;
  r.stop_reason = "bisected";
  return r;
}

}  // namespace sb::plan
