// The SVG chart module: nice ticks, scaling, number formatting, escaping, chart contents.
#include "report/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace sb::report::svg {
namespace {

int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(SvgNiceNumber, RoundsToOneTwoFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(nice_number(1.2, true), 1);
  EXPECT_DOUBLE_EQ(nice_number(2.4, true), 2);
  EXPECT_DOUBLE_EQ(nice_number(4.0, true), 5);
  EXPECT_DOUBLE_EQ(nice_number(8.0, true), 10);
  EXPECT_DOUBLE_EQ(nice_number(0.023, true), 0.02);
  EXPECT_DOUBLE_EQ(nice_number(0.033, true), 0.05);
  EXPECT_DOUBLE_EQ(nice_number(130, false), 200);
  EXPECT_DOUBLE_EQ(nice_number(100, false), 100);
}

TEST(SvgNiceTicks, CoverTheRangeWithNiceSteps) {
  const Ticks t = nice_ticks(0, 187, 5);
  EXPECT_DOUBLE_EQ(t.step, 50);
  ASSERT_EQ(t.values.size(), 5u);
  EXPECT_DOUBLE_EQ(t.values.front(), 0);
  EXPECT_DOUBLE_EQ(t.values.back(), 200);

  const Ticks u = nice_ticks(3.2, 3.9, 5);
  EXPECT_LE(u.values.front(), 3.2 + 1e-9);
  EXPECT_GE(u.values.back(), 3.9 - 1e-9);
  EXPECT_DOUBLE_EQ(u.step, 0.2);

  for (auto [lo, hi] : std::vector<std::pair<double, double>>{
           {0, 1}, {0.001, 0.0093}, {12, 12}, {-5, 17}, {1e5, 3.3e6}, {0, 0}}) {
    const Ticks k = nice_ticks(lo, hi, 5);
    ASSERT_GE(k.values.size(), 2u) << lo << ".." << hi;
    EXPECT_LE(k.values.front(), lo + 1e-9 * std::abs(lo));
    EXPECT_GE(k.values.back(), hi - 1e-9 * std::abs(hi));
    EXPECT_LE(k.values.size(), 12u);
    const double m = k.step / std::pow(10, std::floor(std::log10(k.step)));
    EXPECT_TRUE(std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9)
        << k.step;
  }
  EXPECT_EQ(nice_ticks(NAN, 1).values, (std::vector<double>{0, 1}));
}

TEST(SvgFormat, TickLabelsUseTheStepsDecimalsAndSuffixes) {
  EXPECT_EQ(format_tick(0.2, 0.2), "0.2");
  EXPECT_EQ(format_tick(0.05, 0.05), "0.05");
  EXPECT_EQ(format_tick(150, 50), "150");
  EXPECT_EQ(format_tick(20000, 5000), "20k");
  EXPECT_EQ(format_tick(2.5e7, 5e6), "25M");
  EXPECT_EQ(format_value(1234.56), "1235");
  EXPECT_EQ(format_value(12.3456), "12.35");
  EXPECT_EQ(format_value(NAN), "n/a");
}

TEST(SvgEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape("plain"), "plain");
}

TEST(SvgScale, MapsLinearlyAndHandlesADegenerateDomain) {
  LinearScale s{0, 10, 100, 200};
  EXPECT_DOUBLE_EQ(s(0), 100);
  EXPECT_DOUBLE_EQ(s(5), 150);
  EXPECT_DOUBLE_EQ(s(10), 200);
  LinearScale inv{0, 1, 300, 30};  // y grows upwards
  EXPECT_DOUBLE_EQ(inv(1), 30);
  LinearScale flat{3, 3, 0, 10};
  EXPECT_DOUBLE_EQ(flat(3), 5);
}

TEST(SvgLineChart, HasAxesLegendAndHoverablePointsWithExactValues) {
  LineChart c;
  c.id = "t";
  c.title = "Throughput <vs> load";
  c.x = {"concurrency", "", {}, {}};
  c.y = {"throughput", "req/s", {}, {}};
  c.series = {{"tgi & co", {{1, 10.5}, {8, 70.25}, {16, 120}}}, {"fastapi", {{1, 9}, {8, 40}}}};
  const std::string s = render_line_chart(c);
  EXPECT_EQ(s.rfind("<svg class=\"chart\" data-chart=\"t\"", 0), 0u);
  EXPECT_NE(s.find("<title>Throughput &lt;vs&gt; load</title>"), std::string::npos);
  EXPECT_NE(s.find("throughput (req/s)"), std::string::npos);  // axis label with unit
  EXPECT_NE(s.find(">concurrency<"), std::string::npos);
  EXPECT_EQ(count(s, "class=\"pt\""), 5);
  EXPECT_NE(s.find("data-series=\"tgi &amp; co\" data-x=\"8\" data-y=\"70.25\""),
            std::string::npos);
  EXPECT_NE(s.find("<title>tgi &amp; co: concurrency = 8, throughput = 70.25 req/s</title>"),
            std::string::npos);
  EXPECT_EQ(count(s, "<polyline"), 2);
  EXPECT_NE(s.find("<g class=\"legend\">"), std::string::npos);
  EXPECT_NE(s.find(">fastapi</text>"), std::string::npos);
  // y ticks 0..120 in nice steps, labels present
  EXPECT_NE(s.find(">150</text>"), std::string::npos);  // 0..120 -> ticks 0, 50, .., 150
  EXPECT_NE(s.find(">0</text>"), std::string::npos);
  EXPECT_EQ(s.find("http"), std::string::npos);
  EXPECT_TRUE(s.ends_with("</svg>"));
}

TEST(SvgLineChart, PointsLieInsideThePlotArea) {
  LineChart c;
  c.id = "p";
  c.series = {{"a", {{0, 0}, {100, 1000}}}};
  const std::string s = render_line_chart(c);
  std::regex re("cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  int n = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    const double cx = std::stod((*it)[1]), cy = std::stod((*it)[2]);
    EXPECT_GE(cx, 64);
    EXPECT_LE(cx, c.width - 16);
    EXPECT_GE(cy, 30);
    EXPECT_LE(cy, c.height - 42);
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(SvgLineChart, NoDataSaysSo) {
  LineChart c;
  c.id = "e";
  c.title = "empty";
  c.series = {{"a", {}}};
  EXPECT_NE(render_line_chart(c).find("no data"), std::string::npos);
}

TEST(SvgCdf, SeriesIsMonotoneAndEndsAtOne) {
  std::vector<double> v;
  for (int i = 1000; i >= 1; --i) v.push_back(i);
  const Series s = cdf_series("x", v, 50);
  ASSERT_EQ(s.points.size(), 50u);
  EXPECT_DOUBLE_EQ(s.points.front().x, 1);
  EXPECT_DOUBLE_EQ(s.points.back().x, 1000);
  EXPECT_DOUBLE_EQ(s.points.back().y, 1);
  for (size_t i = 1; i < s.points.size(); ++i) {
    EXPECT_GE(s.points[i].x, s.points[i - 1].x);
    EXPECT_GT(s.points[i].y, s.points[i - 1].y);
  }
  EXPECT_TRUE(cdf_series("e", {}).points.empty());
  EXPECT_EQ(cdf_series("one", {5}).points.size(), 2u);
}

TEST(SvgCdf, MarksThePercentiles) {
  std::vector<double> v;
  for (int i = 0; i <= 100; ++i) v.push_back(i);
  const std::string s =
      render_cdf_chart("c", "CDF of TTFT", {"TTFT", "ms", {}, {}}, {v}, {"run-a"});
  EXPECT_NE(s.find("data-x=\"50\" data-y=\"0.5\""), std::string::npos);
  EXPECT_NE(s.find("data-x=\"99\" data-y=\"0.99\""), std::string::npos);
  EXPECT_NE(s.find("run-a: p99 = 99 ms"), std::string::npos);
  EXPECT_NE(s.find("fraction of samples"), std::string::npos);
}

TEST(SvgBarChart, DrawsOneBarPerValue) {
  BarChart b;
  b.id = "b";
  b.title = "peak";
  b.categories = {"chat", "long"};
  b.series = {"tgi", "fastapi"};
  b.values = {{10.0, 20.0}, {5.0, std::nullopt}};
  b.y = {"QPS", "req/s", {}, {}};
  const std::string s = render_bar_chart(b);
  EXPECT_EQ(count(s, "class=\"bar\""), 3);
  EXPECT_NE(s.find("data-series=\"tgi\" data-x=\"long\" data-y=\"20\""), std::string::npos);
}

TEST(SvgStandalone, AddsTheNamespace) {
  const std::string s = standalone_svg("<svg class=\"chart\"></svg>");
  EXPECT_NE(s.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\">"),
            std::string::npos);
}

}  // namespace
}  // namespace sb::report::svg
