#pragma once
// A small SVG chart module for the HTML report: line charts with several series, CDF charts
// and grouped bar charts. Pure functions: data in, one standalone <svg> element out (no
// scripts, no external references, fonts and colours inline).
//
// Contract of every chart:
//   - <svg class="chart" data-chart="ID" role="img"> (no xmlns: for inline use in HTML; see
//     standalone_svg()) with a <title> naming the chart;
//   - axes with their label and unit ("concurrency", "ms"), ticks at "nice numbers"
//     (1, 2 or 5 times a power of ten) covering the data;
//   - a legend naming every series;
//   - every data point of a line chart is a <circle class="pt" data-series="S" data-x="X"
//     data-y="Y"> (X, Y as shortest round-trip decimals) holding a <title> with the values
//     and units, which browsers show on hover; a CDF marks its p50/p90/p99 the same way;
//   - every text is XML-escaped.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::report::svg {

// XML-escapes & < > " ' (for text and attribute values).
std::string escape(std::string_view text);

// Heckbert's "nice number": 1, 2, 5 or 10 times a power of ten, near `x` (> 0). With
// round = true the nearest such number, otherwise the smallest one >= x.
double nice_number(double x, bool round);

// Ticks covering [lo, hi]: first <= lo, last >= hi, about `target` intervals of a nice step.
// lo == hi gives a range around the value; non-finite input gives {0, 1}.
struct Ticks {
  std::vector<double> values;
  double step = 1;
};
Ticks nice_ticks(double lo, double hi, int target = 5);

// A tick label: as many decimals as `step` needs, "k"/"M" suffixes from 10 000 / 10 000 000.
std::string format_tick(double v, double step);

// A value for hover text: 4 significant digits, no exponent below 1e9.
std::string format_value(double v);

// Maps the domain [d0, d1] linearly onto the range [r0, r1] (d0 == d1 maps to the middle).
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const;
};

struct Point {
  double x = 0, y = 0;
  // Drawn beside the marker (small print) and named in its hover text, as data-label: e.g.
  // "tgi c16" on a Pareto chart. Empty: none.
  std::string label;
};
// At most this many series are drawn in one chart (the rest are named as left out); the
// palette has as many colours, so no colour repeats within a chart.
inline constexpr size_t kMaxSeries = 8;

struct Series {
  std::string name;
  std::vector<Point> points;  // plotted in the given order
  std::string color;          // "#1f77b4"; empty: the palette's, by position
  std::string dash;           // SVG stroke-dasharray ("6 3"); empty: solid
};
// The palette colour i (i < kMaxSeries), for callers that keep a colour per backend.
const char* palette_color(size_t i);
struct Axis {
  std::string label;               // "concurrency"
  std::string unit;                // "ms", "req/s", "" for none
  std::optional<double> min, max;  // fixed bounds; by default the data's (y: from 0)
  bool log2 = false;  // x only: a log-2 axis, ticks at powers of two (values must be > 0)
};
struct LineChart {
  std::string id;     // data-chart attribute, [a-z0-9_-]
  std::string title;  // shown above the chart
  Axis x, y;
  std::vector<Series> series;
  // Drawn after `series` and named in the legend, outside the kMaxSeries limit (it has its own
  // colour): a Pareto frontier across the series. Empty points: none.
  Series overlay;
  bool markers = true;  // draw (and make hoverable) every point
  bool lines = true;    // false: markers only (a scatter plot)
  std::string note;     // a line of small print under the title ("simulated at ×0.005")
  int width = 600, height = 300;
};

std::string render_line_chart(const LineChart& chart);

// The empirical CDF of `samples` as a series (x = value, y = fraction of samples <= x),
// at most `max_points` points (evenly spaced ranks, first and last kept).
Series cdf_series(std::string name, std::vector<double> samples, size_t max_points = 200);

// A CDF chart: y = fraction of samples (0..1; requests, or gaps for ITL); markers at each series'
// p50, p90, p99. A series already ascending and finite is used as it is (no copy: callers with
// millions of samples sort their own); any other is copied, its finite values sorted.
std::string render_cdf_chart(const std::string& id, const std::string& title, const Axis& x,
                             const std::vector<std::vector<double>>& samples,
                             const std::vector<std::string>& names);

// Grouped bars: one group per category, one bar per series (values[s][c]; nullopt: no bar).
struct BarChart {
  std::string id, title;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<std::optional<double>>> values;
  Axis y;
  int width = 600, height = 300;
  bool stacked = false;  // one bar per category, the series' values stacked in order
};
std::string render_bar_chart(const BarChart& chart);

}  // namespace sb::report::svg

namespace sb::report::svg {
// `chart` as a standalone .svg document (adds the SVG namespace that inline HTML omits).
std::string standalone_svg(std::string_view chart);
}  // namespace sb::report::svg
