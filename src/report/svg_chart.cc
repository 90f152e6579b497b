#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "metrics/distribution.h"

namespace sb::report::svg {

namespace {

// Eight colours told apart also by most colour-blind readers (Okabe-Ito, black for yellow).
constexpr const char* kPalette[kMaxSeries] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                              "#e69f00", "#56b4e9", "#000000", "#8c564b"};
constexpr int kMarginLeft = 64, kMarginRight = 16, kMarginTop = 30, kMarginBottom = 42;
constexpr int kLegendRow = 18;

const char* color(size_t i) {
  return kPalette[i % std::size(kPalette)];
}

// Exact decimal for data attributes (shortest round trip).
std::string exact(double v) {
  return fmt::format("{}", v);
}

std::string axis_title(const Axis& a) {
  return a.unit.empty() ? a.label : fmt::format("{} ({})", a.label, a.unit);
}

std::string with_unit(double v, const std::string& unit) {
  return unit.empty() ? format_value(v) : fmt::format("{} {}", format_value(v), unit);
}

// Legend rows under the plot: items laid left to right, wrapping; returns the rows used.
int legend_rows(const std::vector<std::string>& names, int width) {
  int rows = names.empty() ? 0 : 1, x = kMarginLeft;
  for (const auto& n : names) {
    const int w = 22 + 7 * static_cast<int>(n.size()) + 14;
    if (x + w > width && x > kMarginLeft) {
      ++rows;
      x = kMarginLeft;
    }
    x += w;
  }
  return rows;
}

struct Style {
  std::string color, dash;
};

void draw_legend(std::string& out, const std::vector<std::string>& names, int width, int top,
                 const std::vector<Style>& styles = {}) {
  int x = kMarginLeft, y = top;
  out += "<g class=\"legend\">";
  for (size_t i = 0; i < names.size(); ++i) {
    const int w = 22 + 7 * static_cast<int>(names[i].size()) + 14;
    if (x + w > width && x > kMarginLeft) {
      x = kMarginLeft;
      y += kLegendRow;
    }
    const std::string c = i < styles.size() ? styles[i].color : color(i);
    const std::string d = i < styles.size() ? styles[i].dash : "";
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                   "stroke-width=\"3\"{}/><text x=\"{}\" y=\"{}\">{}</text>",
                   x, y - 4, x + 18, y - 4, c,
                   d.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", d), x + 22, y,
                   escape(names[i]));
    x += w;
  }
  out += "</g>";
}

struct Frame {
  int width, height, plot_bottom;
  LinearScale sx, sy;
  Ticks tx, ty;
  bool log2x = false;  // sx maps log2(x)
  double x(double v) const { return log2x ? sx(std::log2(v)) : sx(v); }
};

// Powers of two covering [lo, hi] (lo > 0), step 1 (integer labels).
Ticks log2_ticks(double lo, double hi) {
  Ticks t;
  const int a = static_cast<int>(std::floor(std::log2(lo) + 1e-9));
  int b = static_cast<int>(std::ceil(std::log2(hi) - 1e-9));
  if (b <= a) b = a + 1;
  for (int e = a; e <= b; ++e) t.values.push_back(std::ldexp(1.0, e));
  t.step = t.values.front() < 1 ? t.values.front() : 1;
  return t;
}

void open_svg(std::string& out, const std::string& id, const std::string& title, int width,
              int height) {
  fmt::format_to(std::back_inserter(out),
                 "<svg class=\"chart\" data-chart=\"{}\" role=\"img\" width=\"{}\" "
                 "height=\"{}\" viewBox=\"0 0 {} {}\" "
                 "font-family=\"sans-serif\" font-size=\"11\"><title>{}</title>"
                 "<text x=\"{}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{}</text>",
                 escape(id), width, height, width, height, escape(title), kMarginLeft,
                 escape(title));
}

void draw_axes(std::string& out, const Frame& f, const Axis& x, const Axis& y, bool x_ticks) {
  const double left = kMarginLeft, right = f.width - kMarginRight, top = kMarginTop,
               bottom = f.plot_bottom;
  auto it = std::back_inserter(out);
  out += "<g class=\"axes\" stroke=\"#ccc\">";
  for (double v : f.ty.values) {
    const double py = f.sy(v);
    fmt::format_to(it, "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", left, py,
                   right, py);
  }
  out += "</g><g class=\"ticks\" fill=\"#333\">";
  for (double v : f.ty.values)
    fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", left - 4,
                   f.sy(v) + 4, format_tick(v, f.ty.step));
  if (x_ticks)
    for (double v : f.tx.values)
      fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", f.x(v),
                     bottom + 14, format_tick(v, f.tx.step));
  out += "</g>";
  fmt::format_to(it,
                 "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>"
                 "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#333\"/>",
                 left, bottom, right, top);
  fmt::format_to(
      it, "<text class=\"x-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
      (left + right) / 2, bottom + 32, escape(axis_title(x)));
  fmt::format_to(it,
                 "<text class=\"y-label\" transform=\"translate(14,{:.1f}) rotate(-90)\" "
                 "text-anchor=\"middle\">{}</text>",
                 (top + bottom) / 2, escape(axis_title(y)));
}

std::string no_data(const std::string& id, const std::string& title, int width) {
  std::string out;
  open_svg(out, id, title, width, 60);
  fmt::format_to(std::back_inserter(out),
                 "<text class=\"no-data\" x=\"{}\" y=\"44\" fill=\"#888\">no data</text></svg>",
                 kMarginLeft);
  return out;
}

}  // namespace

const char* palette_color(size_t i) {
  return color(i);
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double nice_number(double x, bool round) {
  if (!(x > 0) || !std::isfinite(x)) return 1;
  const double e = std::floor(std::log10(x));
  const double base = std::pow(10.0, e);
  const double f = x / base;
  double nf;
  if (round)
    nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  else
    nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nf * base;
}

Ticks nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {{0, 1}, 1};
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(target, 1);
  const double step = nice_number(nice_number(hi - lo, false) / target, true);
  const double first = std::floor(lo / step) * step;
  const double last = std::ceil(hi / step) * step;
  Ticks t;
  t.step = step;
  const int n = static_cast<int>(std::llround((last - first) / step));
  for (int i = 0; i <= n; ++i) {
    double v = first + i * step;
    if (std::abs(v) < step * 1e-9) v = 0;  // no "-0"
    t.values.push_back(v);
  }
  return t;
}

std::string format_tick(double v, double step) {
  const double a = std::abs(v);
  if (a >= 1e7 && step >= 1e5) return format_tick(v / 1e6, step / 1e6) + "M";
  if (a >= 1e4 && step >= 100) return format_tick(v / 1e3, step / 1e3) + "k";
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", v, std::clamp(decimals, 0, 9));
}

std::string format_value(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::abs(v);
  if (a >= 1000 && a < 1e9) return fmt::format("{:.0f}", v);
  if (a == 0) return "0";
  return fmt::format("{:.4g}", v);
}

double LinearScale::operator()(double v) const {
  if (d1 == d0) return (r0 + r1) / 2;
  return r0 + (v - d0) / (d1 - d0) * (r1 - r0);
}

namespace {

// The polyline of `screen` (pixel coordinates, in order) with, per pixel column, only the
// column's first, lowest, highest and last points: the same picture at the chart's resolution,
// so a series of 100,000 points costs a few per pixel instead of 100,000.
std::string polyline_points(const std::vector<Point>& screen) {
  std::string pts;
  auto put = [&](const Point& p) {
    fmt::format_to(std::back_inserter(pts), "{}{:.1f},{:.1f}", pts.empty() ? "" : " ", p.x, p.y);
  };
  for (size_t i = 0; i < screen.size();) {
    const double column = std::floor(screen[i].x);
    size_t end = i, lo = i, hi = i;
    for (; end < screen.size() && std::floor(screen[end].x) == column; ++end) {
      if (screen[end].y < screen[lo].y) lo = end;
      if (screen[end].y > screen[hi].y) hi = end;
    }
    std::vector<size_t> keep = {i, lo, hi, end - 1};
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    for (size_t k : keep) put(screen[k]);
    i = end;
  }
  return pts;
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  // At most kMaxSeries series: the rest are named as left out, never drawn in a reused colour.
  const size_t shown = std::min(c.series.size(), kMaxSeries);
  std::vector<const Series*> drawn;
  for (size_t i = 0; i < shown; ++i) drawn.push_back(&c.series[i]);
  if (!c.overlay.points.empty()) drawn.push_back(&c.overlay);
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  std::vector<std::string> names;
  std::vector<Style> styles;
  for (size_t i = 0; i < drawn.size(); ++i) {
    const Series& s = *drawn[i];
    names.push_back(s.name);
    styles.push_back({s.color.empty() ? color(i) : s.color, s.dash});
    for (const Point& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || (c.x.log2 && !(p.x > 0))) continue;
      xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
      ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
    }
  }
  if (xlo > xhi) return no_data(c.id, c.title, c.width);
  ylo = std::min(ylo, 0.0);
  if (c.x.min && !c.x.log2) xlo = *c.x.min;
  if (c.x.max) xhi = *c.x.max;
  if (c.y.min) ylo = *c.y.min;
  if (c.y.max) yhi = *c.y.max;

  const int rows = legend_rows(names, c.width);
  const int top_extra = c.note.empty() ? 0 : 14;
  Frame f{c.width, c.height + rows * kLegendRow, c.height - kMarginBottom, {}, {}, {}, {}};
  f.log2x = c.x.log2;
  f.tx = f.log2x ? log2_ticks(xlo, xhi) : nice_ticks(xlo, xhi, 6);
  f.ty = nice_ticks(ylo, yhi, 5);
  f.sx = f.log2x ? LinearScale{std::log2(f.tx.values.front()), std::log2(f.tx.values.back()),
                               double(kMarginLeft), double(c.width - kMarginRight)}
                 : LinearScale{f.tx.values.front(), f.tx.values.back(), double(kMarginLeft),
                               double(c.width - kMarginRight)};
  f.sy = {f.ty.values.front(), f.ty.values.back(), double(f.plot_bottom),
          double(kMarginTop + top_extra)};

  std::string out;
  auto it = std::back_inserter(out);
  open_svg(out, c.id, c.title, f.width, f.height);
  if (!c.note.empty())
    fmt::format_to(it, "<text class=\"note\" x=\"{}\" y=\"{}\" fill=\"#555\">{}</text>",
                   kMarginLeft, kMarginTop + 6, escape(c.note));
  draw_axes(out, f, c.x, c.y, true);
  for (size_t i = 0; i < drawn.size(); ++i) {
    const Series& s = *drawn[i];
    const std::string& col = styles[i].color;
    fmt::format_to(it, "<g class=\"series\" data-series=\"{}\" data-style=\"{} {}\">",
                   escape(s.name), col, s.dash.empty() ? "solid" : s.dash);
    auto drawable = [&](const Point& p) {
      return std::isfinite(p.x) && std::isfinite(p.y) && (!c.x.log2 || p.x > 0);
    };
    std::vector<Point> screen;  // drawable points in screen coordinates, in order
    for (const Point& p : s.points)
      if (drawable(p)) screen.push_back({f.x(p.x), f.sy(p.y)});
    const std::string pts = polyline_points(screen);
    if (!pts.empty() && c.lines)
      fmt::format_to(it,
                     "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} "
                     "points=\"{}\"><title>{}</title></polyline>",
                     col, s.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", s.dash),
                     pts, escape(s.name));
    if (c.markers)
      for (const Point& p : s.points) {
        if (!drawable(p)) continue;
        const std::string label =
            p.label.empty() ? "" : fmt::format(" data-label=\"{}\"", escape(p.label));
        fmt::format_to(it,
                       "<circle class=\"pt\" data-series=\"{}\" data-x=\"{}\" data-y=\"{}\"{} "
                       "cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}: {} = {}, "
                       "{} = {}</title></circle>",
                       escape(s.name), exact(p.x), exact(p.y), label, f.x(p.x), f.sy(p.y), col,
                       escape(p.label.empty() ? s.name : p.label), escape(c.x.label),
                       escape(with_unit(p.x, c.x.unit)), escape(c.y.label),
                       escape(with_unit(p.y, c.y.unit)));
        if (!p.label.empty())
          fmt::format_to(it,
                         "<text class=\"pt-label\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" "
                         "fill=\"#555\">{}</text>",
                         f.x(p.x) + 5, f.sy(p.y) - 5, escape(p.label));
      }
    out += "</g>";
  }
  if (c.series.size() > shown)
    fmt::format_to(it,
                   "<text class=\"left-out\" x=\"{}\" y=\"{}\" fill=\"#a00\">{} more series "
                   "not drawn (at most {} per chart)</text>",
                   kMarginLeft, c.height - 4, c.series.size() - shown, kMaxSeries);
  draw_legend(out, names, c.width, c.height + 4, styles);
  out += "</svg>";
  return out;
}

namespace {

// `samples` itself when ascending and finite, else `copy` filled with its finite values, sorted.
const std::vector<double>& sorted_finite(const std::vector<double>& samples,
                                         std::vector<double>& copy) {
  const bool finite =
      std::all_of(samples.begin(), samples.end(), [](double v) { return std::isfinite(v); });
  if (finite && std::is_sorted(samples.begin(), samples.end())) return samples;
  copy.clear();
  for (double v : samples)
    if (std::isfinite(v)) copy.push_back(v);
  std::sort(copy.begin(), copy.end());
  return copy;
}

Series cdf_of_sorted(std::string name, const std::vector<double>& sorted, size_t max_points) {
  Series s{std::move(name), {}};
  if (sorted.empty()) return s;
  const size_t n = sorted.size();
  const size_t k = std::max<size_t>(2, std::min(max_points, n));
  for (size_t j = 0; j < k; ++j) {
    const size_t i = n == 1 ? 0 : j * (n - 1) / (k - 1);
    s.points.push_back({sorted[i], static_cast<double>(i + 1) / static_cast<double>(n)});
  }
  return s;
}

}  // namespace

Series cdf_series(std::string name, std::vector<double> samples, size_t max_points) {
  std::vector<double> copy;
  return cdf_of_sorted(std::move(name), sorted_finite(samples, copy), max_points);
}

std::string render_cdf_chart(const std::string& id, const std::string& title, const Axis& x,
                             const std::vector<std::vector<double>>& samples,
                             const std::vector<std::string>& names) {
  LineChart c;
  c.id = id;
  c.title = title;
  c.x = x;
  c.x.min = c.x.min.value_or(0);
  c.y = {"fraction of samples", "", 0.0, 1.0};
  c.markers = false;
  std::vector<std::vector<double>> copies(samples.size());
  std::vector<const std::vector<double>*> sorted;
  for (size_t i = 0; i < samples.size() && i < names.size(); ++i) {
    sorted.push_back(&sorted_finite(samples[i], copies[i]));
    c.series.push_back(cdf_of_sorted(names[i], *sorted.back(), 200));
  }
  std::string svg = render_line_chart(c);
  // Hoverable percentile markers, inserted before the legend.
  std::string marks;
  auto it = std::back_inserter(marks);
  double xhi = -INFINITY;
  for (const auto& s : c.series)
    for (const auto& p : s.points) xhi = std::max(xhi, p.x);
  if (!std::isfinite(xhi)) return svg;
  const Ticks tx = nice_ticks(*c.x.min, c.x.max.value_or(xhi), 6);
  const LinearScale sx{tx.values.front(), tx.values.back(), double(kMarginLeft),
                       double(c.width - kMarginRight)};
  const LinearScale sy{0, 1, double(c.height - kMarginBottom), double(kMarginTop)};
  for (size_t i = 0; i < sorted.size() && i < kMaxSeries; ++i) {
    const std::vector<double>& v = *sorted[i];
    if (v.empty()) continue;
    for (double p : {50.0, 90.0, 99.0}) {
      const double q = metrics::percentile_sorted(v, p);
      fmt::format_to(it,
                     "<circle class=\"pt\" data-series=\"{}\" data-x=\"{}\" data-y=\"{}\" "
                     "cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}: p{} = {}"
                     "</title></circle>",
                     escape(names[i]), exact(q), exact(p / 100), sx(q), sy(p / 100), color(i),
                     escape(names[i]), p, escape(with_unit(q, x.unit)));
    }
  }
  const auto pos = svg.rfind("<g class=\"legend\">");
  if (pos != std::string::npos) svg.insert(pos, marks);
  return svg;
}

std::string render_bar_chart(const BarChart& c) {
  double yhi = -INFINITY;
  for (const auto& row : c.values)
    for (const auto& v : row)
      if (v && std::isfinite(*v)) yhi = std::max(yhi, *v);
  if (c.stacked)
    for (size_t ci = 0; ci < c.categories.size(); ++ci) {
      double sum = 0;
      for (const auto& row : c.values)
        if (ci < row.size() && row[ci] && std::isfinite(*row[ci])) sum += std::max(0.0, *row[ci]);
      yhi = std::max(yhi, sum);
    }
  if (c.categories.empty() || !std::isfinite(yhi)) return no_data(c.id, c.title, c.width);
  const int rows = legend_rows(c.series, c.width);
  Frame f{c.width, c.height + rows * kLegendRow, c.height - kMarginBottom, {}, {}, {}, {}};
  f.ty = nice_ticks(c.y.min.value_or(0), c.y.max.value_or(yhi), 5);
  f.sy = {f.ty.values.front(), f.ty.values.back(), double(f.plot_bottom), double(kMarginTop)};
  std::string out;
  auto it = std::back_inserter(out);
  open_svg(out, c.id, c.title, f.width, f.height);
  draw_axes(out, f, Axis{"", "", {}, {}}, c.y, false);
  const double plot_w = c.width - kMarginLeft - kMarginRight;
  const double group_w = plot_w / static_cast<double>(c.categories.size());
  const double bar_w =
      group_w * 0.8 / static_cast<double>(c.stacked ? 1 : std::max<size_t>(1, c.series.size()));
  for (size_t ci = 0; ci < c.categories.size(); ++ci) {
    const double gx = kMarginLeft + ci * group_w;
    fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                   gx + group_w / 2, f.plot_bottom + 14, escape(c.categories[ci]));
    double base = 0;  // stacked: the top of the bars below
    for (size_t si = 0; si < c.series.size(); ++si) {
      if (si >= c.values.size() || ci >= c.values[si].size() || !c.values[si][ci]) continue;
      const double v = *c.values[si][ci];
      if (c.stacked && !(v > 0)) continue;
      const double y0 = f.sy(c.stacked ? base : 0), y1 = f.sy(c.stacked ? base + v : v);
      if (c.stacked) base += v;
      fmt::format_to(it,
                     "<rect class=\"bar\" data-series=\"{}\" data-x=\"{}\" data-y=\"{}\" "
                     "x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
                     "<title>{}, {}: {}</title></rect>",
                     escape(c.series[si]), escape(c.categories[ci]), exact(v),
                     gx + group_w * 0.1 + (c.stacked ? 0.0 : static_cast<double>(si) * bar_w),
                     std::min(y0, y1), bar_w, std::abs(y0 - y1), color(si), escape(c.series[si]),
                     escape(c.categories[ci]), escape(with_unit(v, c.y.unit)));
    }
  }
  draw_legend(out, c.series, c.width, c.height + 4);
  out += "</svg>";
  return out;
}

}  // namespace sb::report::svg

namespace sb::report::svg {
std::string standalone_svg(std::string_view chart) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += chart;
  const auto pos = out.find("<svg ");
  if (pos != std::string::npos) out.insert(pos + 5, "xmlns=\"http://www.w3.org/2000/svg\" ");
  out += "\n";
  return out;
}
}  // namespace sb::report::svg
