#include "calibrate/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sb::calibrate {
namespace {

using Point = std::vector<double>;

struct Search {
  const std::function<double(const Point&)>& f;
  const Point& lo;
  const Point& hi;
  int evaluations = 0;

  Point clamp(Point x) const {
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i], lo[i], hi[i]);
    return x;
  }
  double eval(const Point& x) {
    ++evaluations;
    const double v = f(x);
    return std::isfinite(v) ? v : 1e300;
  }
};

// x0 + t (x1 - x0), clamped.
Point along(const Search& s, const Point& x0, const Point& x1, double t) {
  Point p(x0.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = x0[i] + t * (x1[i] - x0[i]);
  return s.clamp(std::move(p));
}

double spread(const std::vector<Point>& pts) {
  double d = 0;
  for (size_t k = 1; k < pts.size(); ++k)
    for (size_t i = 0; i < pts[0].size(); ++i) d = std::max(d, std::abs(pts[k][i] - pts[0][i]));
  return d;
}

// One simplex search from x0; returns the best vertex and its value.
std::pair<Point, double> search_once(Search& s, const Point& x0, const NelderMeadOptions& o,
                                     int budget) {
  const size_t n = x0.size();
  std::vector<Point> pts{s.clamp(x0)};
  for (size_t i = 0; i < n; ++i) {
    Point p = pts[0];
    p[i] = p[i] + o.step <= s.hi[i] ? p[i] + o.step : p[i] - o.step;
    pts.push_back(s.clamp(std::move(p)));
  }
  std::vector<double> fv;
  for (const auto& p : pts) fv.push_back(s.eval(p));
  const int stop_at = s.evaluations + budget;
  std::vector<size_t> idx(n + 1);
  while (s.evaluations < stop_at) {
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return fv[a] < fv[b]; });
    std::vector<Point> sp;
    std::vector<double> sf;
    for (size_t k : idx) sp.push_back(pts[k]), sf.push_back(fv[k]);
    pts = std::move(sp);
    fv = std::move(sf);
    if (fv[n] - fv[0] <= o.f_tolerance * fv[0] + 1e-14 || spread(pts) < o.x_tolerance) break;
    Point centroid(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i) centroid[i] += pts[k][i] / static_cast<double>(n);
    const Point xr = along(s, centroid, pts[n], -1.0);
    const double fr = s.eval(xr);
    if (fr < fv[0]) {
      const Point xe = along(s, centroid, pts[n], -2.0);
      const double fe = s.eval(xe);
      pts[n] = fe < fr ? xe : xr;
      fv[n] = std::min(fe, fr);
    } else if (fr < fv[n - 1]) {
      pts[n] = xr;
      fv[n] = fr;
    } else {
      const bool outside = fr < fv[n];
      const Point xc = along(s, centroid, outside ? xr : pts[n], 0.5);
      const double fc = s.eval(xc);
      if (fc < std::min(fr, fv[n])) {
        pts[n] = xc;
        fv[n] = fc;
      } else {  // shrink towards the best
        for (size_t k = 1; k <= n; ++k) {
          pts[k] = along(s, pts[0], pts[k], 0.5);
          fv[k] = s.eval(pts[k]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  return {pts[best], fv[best]};
}

}  // namespace

NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             std::vector<double> x0, const std::vector<double>& lo,
                             const std::vector<double>& hi, const NelderMeadOptions& o) {
  Search s{f, lo, hi};
  auto [x, fx] = search_once(s, x0, o, o.max_evaluations);
  for (int r = 0; r < o.restarts && s.evaluations < o.max_evaluations; ++r) {
    auto [y, fy] = search_once(s, x, o, o.max_evaluations - s.evaluations);
    const bool better = fy < fx - 1e-15;
    if (fy <= fx) x = y, fx = fy;
    if (!better) break;
  }
  return {x, fx, s.evaluations};
}

}  // namespace sb::calibrate
