// The HTML and Markdown reports on run folders written from hand-built records: every section
// and chart present, numbers consistent with summary.json, nothing external.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <regex>

#include "report/markdown_report.h"
#include "run_folder_fixture.h"

namespace sb::report {
namespace {

namespace fs = std::filesystem;
using testing::synthetic_info;
using testing::synthetic_records;
using testing::temp_folder;
using testing::write_run;

int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// Everything outside <pre> blocks (the config dump holds the target's URL as data).
std::string without_pre(std::string s) {
  static const std::regex pre("<pre>[^<]*</pre>");
  return std::regex_replace(s, pre, "");
}

// A plan: 2 backends x 2 loads, and one bad-input run (cut requests.jsonl).
std::vector<RunData> plan(const fs::path& d) {
  int seed = 1;
  for (const std::string b : {"tgi", "fastapi"})
    for (int c : {2, 8})
      write_run(d / b / fmt::format("c{}", c),
                synthetic_records(40, seed++, b == "tgi" ? 1 : 1.5 + c / 8.0, c),
                synthetic_info(c, b));
  return load_runs({d.string()});
}

std::string chart_of(const std::string& html, const std::string& id) {
  const auto start = html.find("data-chart=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</svg>", start) - start);
}

TEST(HtmlReport, HasEverySectionAndChartAndNoExternalReference) {
  const auto d = temp_folder("html");
  const auto runs = plan(d);
  ReportOptions o;
  o.sla = {parse_sla("p99_e2e_ms:150"), parse_sla("error_rate_pct:1")};
  const std::string html = render_html_report(runs, o);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* sec :
       {"id=\"sla\"", "id=\"recommendation\"", "id=\"comparison\"", "id=\"load\"", "id=\"cdf\"",
        "id=\"timeseries\"", "id=\"runs\"", "id=\"config\"", "id=\"glossary\"", "id=\"resources\""})
    EXPECT_NE(html.find(sec), std::string::npos) << sec;
  // Small multiples: one panel per scenario (here one, in32/out16).
  for (const char* id :
       {"throughput-rps-in32-out16", "throughput-tokens-in32-out16", "latency-ttft-ms-in32-out16",
        "latency-tpot-ms-in32-out16", "latency-itl-ms-in32-out16", "latency-e2e-ms-in32-out16",
        "error-rate-in32-out16", "goodput-in32-out16", "pareto-in32-out16",
        "cdf-ttft-ms-in32-out16", "cdf-tpot-ms-in32-out16", "cdf-itl-ms-in32-out16",
        "cdf-e2e-ms-in32-out16", "ts-throughput-0", "ts-inflight-0", "ts-ttft-0", "ts-tokens-0"}) {
    const std::string c = chart_of(html, id);
    ASSERT_FALSE(c.empty()) << id;
    EXPECT_TRUE(c.find("<polyline") != std::string::npos) << id;
    EXPECT_EQ(c.find("no data"), std::string::npos) << id;
  }
  // Self-contained: no script, no link, no URL outside the config dump.
  const std::string body = without_pre(html);
  for (const char* bad : {"http://", "https://", "<script", "<link", "src=", "href=", "url(",
                          "@import", "<img", "<iframe"})
    EXPECT_EQ(body.find(bad), std::string::npos) << bad;
  // Glossary from the metric definitions.
  EXPECT_NE(html.find("(e2e - TTFT) / (output_tokens - 1)"), std::string::npos);
}

TEST(HtmlReport, NumbersMatchSummaryJson) {
  const auto d = temp_folder("numbers");
  const auto runs = plan(d);
  const std::string html = render_html_report(runs, {});
  for (const RunData& r : runs) {
    const auto& s = r.summary;
    const double rps = s["throughput"]["requests_per_s"];
    const double p99 = s["metrics"]["e2e_ms"]["p99"];
    const double ttft50 = s["metrics"]["ttft_ms"]["p50"];
    // The run table row holds the summary's numbers.
    const std::string row_start = fmt::format("<tr><td>{}</td><td>{}</td>", r.name, r.backend);
    const auto pos = html.find(row_start);
    ASSERT_NE(pos, std::string::npos) << row_start;
    const std::string row = html.substr(pos, html.find("</tr>", pos) - pos);
    EXPECT_NE(row.find(fmt::format("<td>{:.2f}</td>", rps)), std::string::npos) << row;
    EXPECT_NE(row.find(fmt::format("<td>{:.2f}</td>", p99)), std::string::npos) << row;
    EXPECT_NE(row.find(fmt::format("<td>{:.2f}</td>", ttft50)), std::string::npos) << row;
    // The throughput chart's point for this run is the exact summary value.
    const std::string chart = chart_of(html, "throughput-rps-in32-out16");
    EXPECT_NE(chart.find(fmt::format("data-series=\"{}\" data-x=\"{}\" data-y=\"{}\"", r.backend,
                                     load_of(s).value, rps)),
              std::string::npos)
        << r.name;
    const std::string lat = chart_of(html, "latency-e2e-ms-in32-out16");
    EXPECT_NE(lat.find(fmt::format("data-x=\"{}\" data-y=\"{}\"", load_of(s).value, p99)),
              std::string::npos);
    // The comparison cell at this load.
    EXPECT_NE(html.find(fmt::format("P99 {:.1f} ms · {:.2f} req/s", p99, rps)), std::string::npos);
  }
  // CDF percentile markers equal the summary's percentiles (same definition, same samples).
  // The CDFs are at the study's named load (8: the highest both backends ran), one series
  // per backend.
  const std::string cdf = chart_of(html, "cdf-e2e-ms-in32-out16");
  for (const RunData& r : runs) {
    if (load_of(r.summary).value != 8) continue;
    const double p50 = r.summary["metrics"]["e2e_ms"]["p50"];
    EXPECT_NE(
        cdf.find(fmt::format("data-series=\"{}\" data-x=\"{}\" data-y=\"0.5\"", r.backend, p50)),
        std::string::npos)
        << r.name;
  }
  // Comparison table: rows = backends, columns = the scenario.
  EXPECT_NE(html.find("<table data-table=\"comparison-concurrency-2\"><thead><tr><th>backend</th>"
                      "<th>in32/out16</th></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("P99 e2e latency and QPS at concurrency 8"), std::string::npos);
}

TEST(HtmlReport, SlaVerdictsAndRecommendationFollowTheData) {
  const auto d = temp_folder("sla");
  const auto runs = plan(d);
  ReportOptions o;
  o.sla = {parse_sla("p99_e2e_ms:150")};
  const std::string html = render_html_report(runs, o);
  for (const RunData& r : runs) {
    const double p99 = r.summary["metrics"]["e2e_ms"]["p99"];
    const std::string verdict = fmt::format("{} {:.2f}", p99 <= 150 ? "PASS" : "FAIL", p99);
    EXPECT_NE(html.find(verdict), std::string::npos) << verdict;
  }
  // tgi (scale 1) holds p99 e2e ~100 ms at both loads; fastapi does not.
  EXPECT_NE(html.find("data-winner=\"sim:tgi\">in32/out16: sim:tgi — it meets the SLOs up to "
                      "concurrency 8"),
            std::string::npos);
  EXPECT_NE(html.find("sim:fastapi loses: stable at no judged load; past the SLO at concurrency 2"),
            std::string::npos);
}

TEST(HtmlReport, ChartsAreReadableSmallMultiples) {
  const auto d = temp_folder("readable");
  const auto runs = plan(d);
  const std::string html = render_html_report(runs, {});
  // Every chart: at most 8 series, no colour and line style twice (a backend keeps its colour,
  // its percentiles differ by line style).
  static const std::regex color_re(
      "<g class=\"series\" data-series=\"[^\"]*\" data-style=\"([^\"]+)\"");
  int charts = 0;
  for (size_t p = html.find("<svg class=\"chart\""); p != std::string::npos;
       p = html.find("<svg class=\"chart\"", p + 1)) {
    const std::string c = html.substr(p, html.find("</svg>", p) - p);
    std::vector<std::string> colors;
    for (auto it = std::sregex_iterator(c.begin(), c.end(), color_re); it != std::sregex_iterator();
         ++it)
      colors.push_back((*it)[1]);
    EXPECT_LE(colors.size(), 8u);
    std::sort(colors.begin(), colors.end());
    EXPECT_EQ(std::adjacent_find(colors.begin(), colors.end()), colors.end()) << c.substr(0, 200);
    ++charts;
  }
  EXPECT_GT(charts, 10);
  // Colour = backend (the same in every panel), line style = percentile.
  const std::string lat = chart_of(html, "latency-e2e-ms-in32-out16");
  EXPECT_NE(lat.find("data-series=\"sim:tgi p99\""), std::string::npos);
  EXPECT_NE(lat.find("stroke-dasharray=\"6 3\""), std::string::npos);
  // Concurrency levels 2 and 8 on a log-2 axis: ticks 2, 4, 8.
  for (const char* tick : {">2</text>", ">4</text>", ">8</text>"})
    EXPECT_NE(lat.find(tick), std::string::npos) << tick;
  EXPECT_EQ(lat.find(">6</text>"), std::string::npos);
  // Error rate on [0, 100] %.
  const std::string err = chart_of(html, "error-rate-in32-out16");
  EXPECT_NE(err.find(">100</text>"), std::string::npos);
  EXPECT_EQ(err.find(">-1</text>"), std::string::npos);
  // The Pareto chart marks its frontier.
  EXPECT_NE(chart_of(html, "pareto-in32-out16").find("data-series=\"Pareto frontier\""),
            std::string::npos);
}

TEST(HtmlReport, BadInputIsReportedAndStillRenders) {
  const auto d = temp_folder("bad");
  write_run(d / "cut", synthetic_records(10, 1, 1), synthetic_info(2));
  {
    std::ofstream out(d / "cut" / "requests.jsonl", std::ios::app);
    out << "{\"id\":99,\"class\":\"def";  // a line cut mid-way
  }
  write_run(d / "empty", {}, synthetic_info(4));
  const auto runs = load_runs({d.string()});
  const std::string html = render_html_report(runs, {});
  EXPECT_NE(html.find("id=\"notes\""), std::string::npos);
  EXPECT_NE(html.find("skipped 1 line that did not parse"), std::string::npos);
  EXPECT_NE(html.find("empty run (no measured requests)"), std::string::npos);
  EXPECT_NE(html.find("<td>10 / 10</td>"), std::string::npos);  // the cut run's whole lines
  EXPECT_NE(html.find("<td>empty</td>"), std::string::npos);
}

TEST(HtmlReport, ReportChartsListsEveryChart) {
  const auto d = temp_folder("charts");
  const auto runs = plan(d);
  const auto charts = report_charts(runs, {});
  const std::string html = render_html_report(runs, {});
  EXPECT_EQ(static_cast<int>(charts.size()), count(html, "<svg class=\"chart\""));
}

TEST(MarkdownReport, HasTheTablesWithTheSameNumbers) {
  const auto d = temp_folder("md");
  const auto runs = plan(d);
  ReportOptions o;
  o.sla = {parse_sla("p99_e2e_ms:150")};
  const std::string md = render_markdown_report(runs, o);
  EXPECT_EQ(md.rfind("# servebench report", 0), 0u);
  for (const char* h : {"## SLA compliance", "## Recommendation", "## The study's tables",
                        "## Runs", "| backend | in32/out16 |"})
    EXPECT_NE(md.find(h), std::string::npos) << h;
  for (const RunData& r : runs)
    EXPECT_NE(md.find(fmt::format("| {:.2f} |", double(r.summary["throughput"]["requests_per_s"]))),
              std::string::npos);
  EXPECT_EQ(md.find("<svg"), std::string::npos);
  Table t{"x", "x", {"a|b", "c"}, {{"1|2", "3"}}};
  EXPECT_EQ(markdown_table(t), "| a\\|b | c |\n| --- | ---: |\n| 1\\|2 | 3 |\n");
}

}  // namespace
}  // namespace sb::report
