#pragma once
// The errors of a fit: per level and metric the signed relative error predicted / measured - 1,
// and over levels (or over everything) the mean signed error and the mean, p50, p90 and p99 of
// the absolute error (percentiles by metrics::percentile_sorted, numpy's linear method).
#include <optional>
#include <vector>

#include "calibrate/level_metrics.h"

namespace sb::calibrate {

// predicted / measured - 1; nullopt unless both are defined and measured > 0.
std::optional<double> relative_error(const std::optional<double>& measured,
                                     const std::optional<double>& predicted);

struct ErrorStats {
  int count = 0;
  double mean_signed = 0, mean_abs = 0, p50_abs = 0, p90_abs = 0, p99_abs = 0;
};
// Of the signed errors given (count 0: all fields 0).
ErrorStats error_stats(const std::vector<double>& signed_errors);

}  // namespace sb::calibrate
