#pragma once
// A bounded Nelder–Mead simplex search (derivative-free, deterministic): minimises f over the
// box [lo, hi] (every point is clamped into it), starting from x0 with an initial simplex of
// x0 + step along each axis (or - step where + leaves the box), with restarts from the best
// point until a restart no longer improves it.
#include <functional>
#include <vector>

namespace sb::calibrate {

struct NelderMeadOptions {
  double step = 0.3;           // initial simplex edge, in x's units
  int max_evaluations = 2000;  // over all restarts
  int restarts = 3;            // extra searches from the best point found
  // A search stops when f's spread over the simplex is within f_tolerance x its best value
  // (+ 1e-14), or the simplex's largest edge is below x_tolerance.
  double f_tolerance = 1e-8;
  double x_tolerance = 1e-4;
};

struct NelderMeadResult {
  std::vector<double> x;
  double f = 0;
  int evaluations = 0;
};

NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             std::vector<double> x0, const std::vector<double>& lo,
                             const std::vector<double>& hi, const NelderMeadOptions& o = {});

}  // namespace sb::calibrate
