#include "calibrate/residuals.h"

#include <algorithm>
#include <cmath>

#include "metrics/distribution.h"

namespace sb::calibrate {

std::optional<double> relative_error(const std::optional<double>& measured,
                                     const std::optional<double>& predicted) {
  if (!measured || !predicted || !(*measured > 0)) return std::nullopt;
  return *predicted / *measured - 1.0;
}

ErrorStats error_stats(const std::vector<double>& e) {
  ErrorStats s;
  if (e.empty()) return s;
  std::vector<double> abs_e;
  for (double x : e) {
    s.mean_signed += x;
    abs_e.push_back(std::abs(x));
  }
  s.count = static_cast<int>(e.size());
  s.mean_signed /= s.count;
  std::sort(abs_e.begin(), abs_e.end());
  for (double x : abs_e) s.mean_abs += x;
  s.mean_abs /= s.count;
  s.p50_abs = metrics::percentile_sorted(abs_e, 50);
  s.p90_abs = metrics::percentile_sorted(abs_e, 90);
  s.p99_abs = metrics::percentile_sorted(abs_e, 99);
  return s;
}

}  // namespace sb::calibrate
