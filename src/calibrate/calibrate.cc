#include "calibrate/calibrate.h"

#include <cmath>

#include "predict/virtual_run.h"

namespace sb::calibrate {

LevelMetrics predict_level(const MeasuredRun& run, const sim::SimConfig& config) {
  predict::VirtualHooks hooks;
  const engine::RunResult r = predict::run_virtual(run.replay, {config}, hooks);
  return metrics_of_records(r.records);
}

double mean_squared_log_error(const std::vector<MeasuredRun>& runs,
                              const std::vector<LevelMetrics>& predicted) {
  double sum = 0;
  int n = 0;
  for (size_t k = 0; k < runs.size(); ++k)
    for (size_t m = 0; m < kMetricNames.size(); ++m) {
      if (!kFitted[m]) continue;
      const auto& meas = runs[k].measured[m];
      const auto& pred = predicted[k][m];
      if (!meas || !pred || !(*meas > 0) || !(*pred > 0)) continue;
      const double e = std::log(*pred / *meas);
      sum += e * e;
      ++n;
    }
  return n > 0 ? sum / n : 0.0;
}

std::vector<LevelResult> predict_levels(const std::vector<MeasuredRun>& runs,
                                        const sim::SimConfig& config) {
  std::vector<LevelResult> out;
  for (const MeasuredRun& r : runs)
    out.push_back({r.dir, r.level, r.measured, predict_level(r, config)});
  return out;
}

FitResult fit(const std::vector<MeasuredRun>& runs, const sim::SimConfig& base,
              const NelderMeadOptions& options) {
  FitResult out;
  out.base = base;
  out.params = fit_params_for(base);
  const auto& ps = out.params;
  std::vector<double> u0, lo, hi;
  for (const FitParam& p : ps) {
    out.start.push_back(p.get(base));
    u0.push_back(to_u(p, p.get(base)));
    lo.push_back(to_u(p, p.lo));
    hi.push_back(to_u(p, p.hi));
  }
  const auto config_at = [&](const std::vector<double>& u) {
    sim::SimConfig c = base;
    for (size_t i = 0; i < ps.size(); ++i) ps[i].set(c, from_u(ps[i], u[i]));
    return c;
  };
  const auto objective = [&](const std::vector<double>& u) {
    const sim::SimConfig c = config_at(u);
    std::vector<LevelMetrics> predicted;
    for (const MeasuredRun& r : runs) predicted.push_back(predict_level(r, c));
    return mean_squared_log_error(runs, predicted);
  };
  out.objective_start = objective(u0);
  const NelderMeadResult best = nelder_mead(objective, u0, lo, hi, options);
  out.fitted = config_at(best.x);
  for (const FitParam& p : ps) out.values.push_back(p.get(out.fitted));
  out.objective = best.f;
  out.evaluations = best.evaluations + 1;
  out.levels = predict_levels(runs, out.fitted);
  return out;
}

}  // namespace sb::calibrate
