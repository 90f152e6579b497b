#pragma once
// `servebench calibrate`: fits a simulator preset's free parameters (calibrate/fit_params.h)
// to measured runs of one server at several load levels. Every candidate replays every run in
// virtual time (calibrate/replay.h, predict::run_virtual) and is scored by the mean squared
// log error of the predicted against the measured figures (calibrate/level_metrics.h) over
// every metric and level that both have; a bounded Nelder–Mead search in the parameters'
// log space (calibrate/nelder_mead.h) minimises it. Deterministic: the same runs and base
// give the same fit.
#include <string>
#include <vector>

#include "calibrate/fit_params.h"
#include "calibrate/level_metrics.h"
#include "calibrate/nelder_mead.h"
#include "calibrate/replay.h"
#include "sim/config.h"

namespace sb::calibrate {

// The figures a replay of `run` against `config` predicts (model time).
LevelMetrics predict_level(const MeasuredRun& run, const sim::SimConfig& config);

// Mean over (level, fitted metric: kFitted) pairs with both values > 0 of
// log(predicted / measured)^2.
double mean_squared_log_error(const std::vector<MeasuredRun>& runs,
                              const std::vector<LevelMetrics>& predicted);

struct LevelResult {
  std::string dir, level;
  LevelMetrics measured, predicted;
};

struct FitResult {
  sim::SimConfig base, fitted;
  std::vector<FitParam> params;
  std::vector<double> start, values;          // per params entry: the base's and the fitted value
  double objective_start = 0, objective = 0;  // mean squared log error of the fitted metrics
  int evaluations = 0;
  std::vector<LevelResult> levels;  // the fitted config's predictions, per run
};

// Fits `base`'s free parameters to `runs` (check_same_workload first: the caller's).
FitResult fit(const std::vector<MeasuredRun>& runs, const sim::SimConfig& base,
              const NelderMeadOptions& options = {});

// The predictions of `config` for every run, as a FitResult's levels.
std::vector<LevelResult> predict_levels(const std::vector<MeasuredRun>& runs,
                                        const sim::SimConfig& config);

}  // namespace sb::calibrate
