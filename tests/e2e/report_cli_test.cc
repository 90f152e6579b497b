// `servebench report` and `servebench compare` as users run them, on run folders recorded by
// the tests with the embedded simulator (`instant` preset: each run takes well under a second).
#include <gtest/gtest.h>

#include "../support/text_file.h"
#include "run_binary.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Cmd = sb::testing::CmdResult;
Cmd sb(const std::string& args) {
  return sb::testing::run_servebench(args);
}

using sb::testing::slurp;

json summary(const fs::path& run) {
  return json::parse(slurp(run / "summary.json"));
}

// Runs recorded once for the whole suite.
class ReportCli : public ::testing::Test {
 protected:
  static fs::path root;
  static void SetUpTestSuite() {
    root = fs::temp_directory_path() / ("servebench-report-e2e-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  static void TearDownTestSuite() { fs::remove_all(root); }

  static void prof(const fs::path& dir, const std::string& flags) {
    if (fs::exists(dir / "summary.json")) return;
    const Cmd r =
        sb("prof --sim instant --api tgi --no-progress -q " + flags + " -o " + dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
  }
};
fs::path ReportCli::root;

// A plan of 3 providers x 3 scenarios, as the reference study's table.
TEST_F(ReportCli, PlanOfThreeProvidersByThreeScenariosRendersTheComparisonTable) {
  const std::vector<std::string> providers = {"tgi", "fastapi", "pytorch"};
  const std::vector<std::pair<std::string, std::string>> scenarios = {
      {"chat", "--input-length 32 --output-length 8"},
      {"long", "--input-length 256 --output-length 24"},
      {"mixed", "--input-length 128 --output-length 16"}};
  std::string labels;
  for (size_t p = 0; p < providers.size(); ++p) {
    for (const auto& [name, flags] : scenarios)
      prof(root / "plan" / providers[p] / name,
           fmt::format("-n 12 --concurrency {} --sim-time-scale {} {}", 2, 1 + p, flags));
    labels += fmt::format(" --label {}={}", providers[p], (root / "plan" / providers[p]).string());
  }
  const fs::path html_path = root / "plan-report.html";
  const Cmd r = sb("report" + labels + " --sla p99_e2e_ms:60 -o " + html_path.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string html = slurp(html_path);
  // Through a pipe (where stdout would be fully buffered but for main's line buffering), the
  // tables come before the status line on stderr, which ends the output.
  const auto status = r.out.rfind("servebench: report of 9 runs written to ");
  ASSERT_NE(status, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n', status), r.out.size() - 1) << r.out;
  EXPECT_LT(r.out.find("Recommendation"), status) << r.out;

  // rows = providers, columns = scenarios (named from the prompt/answer lengths).
  const auto t = html.find("<table data-table=\"comparison-concurrency-2\">");
  ASSERT_NE(t, std::string::npos);
  const std::string table = html.substr(t, html.find("</table>", t) - t);
  EXPECT_NE(table.find("<th>backend</th><th>in32/out8</th><th>in256/out24</th>"
                       "<th>in128/out16</th>"),
            std::string::npos)
      << table;
  for (const auto& p : providers) {
    const auto row = table.find("<tr><td>" + p + "</td>");
    ASSERT_NE(row, std::string::npos) << p;
    const std::string tr = table.substr(row, table.find("</tr>", row) - row);
    for (const auto& [name, _] : scenarios) {
      const json s = summary(root / "plan" / p / name);
      const std::string want =
          fmt::format("P99 {:.1f} ms · {:.2f} req/s", s["metrics"]["e2e_ms"]["p99"].get<double>(),
                      s["throughput"]["requests_per_s"].get<double>());
      EXPECT_NE(tr.find(want), std::string::npos) << p << " " << name << ": " << tr;
    }
  }
  // SLA verdicts carry the numbers (time-scaled runs in model time: wall / S); nothing
  // external.
  for (const auto& p : providers) {
    const json s = summary(root / "plan" / p / "chat");
    const double p99 =
        s["metrics"]["e2e_ms"]["p99"].get<double>() / s["config"].value("sim_time_scale", 1.0);
    EXPECT_NE(html.find(fmt::format("{} {:.2f}", p99 <= 60 ? "PASS" : "FAIL", p99)),
              std::string::npos);
  }
  const std::string body = std::regex_replace(html, std::regex("<pre>[^<]*</pre>"), "");
  for (const char* bad : {"http://", "https://", "<script", "<link", "src=", "href=", "url("})
    EXPECT_EQ(body.find(bad), std::string::npos) << bad;
  EXPECT_NE(html.find("id=\"recommendation\""), std::string::npos);

  // Markdown to stdout.
  const Cmd md = sb("report" + labels + " --format md -o -");
  ASSERT_EQ(md.code, 0) << md.out;
  EXPECT_NE(md.out.find("| backend | in32/out8 | in256/out24 | in128/out16 |"), std::string::npos)
      << md.out;
}

TEST_F(ReportCli, LoadSweepChartsMatchSummaries) {
  for (int c : {1, 2, 4})
    prof(root / "sweep" / fmt::format("c{}", c),
         fmt::format("-n 16 --concurrency {} --output-length 8", c));
  const fs::path out = root / "sweep.html";
  const Cmd r = sb("report " + (root / "sweep").string() + " -q -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string html = slurp(out);
  for (int c : {1, 2, 4}) {
    const json s = summary(root / "sweep" / fmt::format("c{}", c));
    EXPECT_NE(html.find(fmt::format("data-x=\"{}\" data-y=\"{}\"", c,
                                    s["throughput"]["requests_per_s"].get<double>())),
              std::string::npos)
        << c;
    EXPECT_NE(html.find(fmt::format("data-x=\"{}\" data-y=\"{}\"", c,
                                    s["metrics"]["ttft_ms"]["p99"].get<double>())),
              std::string::npos)
        << c;
  }
  // One panel per scenario: ids carry the scenario after the chart's kind. (Over-time charts
  // only for runs with at least 10 buckets: none in these short runs.)
  for (const char* id : {"throughput-rps", "latency-tpot-ms", "error-rate", "cdf-itl-ms"})
    EXPECT_NE(html.find(fmt::format("data-chart=\"{}-", id)), std::string::npos) << id;
}

TEST_F(ReportCli, BadInputGivesClearMessages) {
  const fs::path good = root / "bad" / "good";
  prof(good, "-n 10 --concurrency 2");
  // Missing summary.json.
  fs::create_directories(root / "bad" / "nosummary");
  Cmd r = sb("report " + (root / "bad" / "nosummary").string() + " -o " +
             (root / "ignored.html").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("summary.json"), std::string::npos) << r.out;
  // Truncated summary.json.
  fs::create_directories(root / "bad" / "trunc");
  const std::string full = slurp(good / "summary.json");
  std::ofstream(root / "bad" / "trunc" / "summary.json") << full.substr(0, full.size() / 3);
  r = sb("report " + (root / "bad" / "trunc").string() + " -o " + (root / "ignored.html").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find((root / "bad" / "trunc" / "summary.json").string() +
                       ": not valid JSON (truncated"),
            std::string::npos)
      << r.out;
  // Another schema version beside a good run.
  fs::create_directories(root / "bad" / "v2");
  json s = json::parse(full);
  s["schema"] = "servebench.summary/2";
  std::ofstream(root / "bad" / "v2" / "summary.json") << s.dump();
  r = sb("report " + good.string() + " " + (root / "bad" / "v2").string() + " -o " +
         (root / "ignored.html").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("schema 'servebench.summary/2' is not supported"), std::string::npos)
      << r.out;
  // requests.jsonl cut mid-line: renders from the whole lines and says so.
  fs::create_directories(root / "bad" / "cut");
  fs::copy_file(good / "summary.json", root / "bad" / "cut" / "summary.json");
  const std::string jsonl = slurp(good / "requests.jsonl");
  std::ofstream(root / "bad" / "cut" / "requests.jsonl") << jsonl.substr(0, jsonl.size() - 40);
  const fs::path out = root / "bad" / "cut.html";
  r = sb("report " + (root / "bad" / "cut").string() + " -o " + out.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped 1 line"), std::string::npos) << r.out;
  EXPECT_NE(slurp(out).find("used the 9 whole lines"), std::string::npos);
  // A bad --sla is a usage error.
  r = sb("report " + good.string() + " --sla p99_e2e:abc -o /dev/null");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--sla"), std::string::npos);
}

TEST_F(ReportCli, CompareFlagsADoubledLatencyAndNotTheSameConfiguration) {
  const std::string flags = "-n 40 --concurrency 2 --output-length 16 --seed 3";
  prof(root / "cmp" / "base", flags);
  prof(root / "cmp" / "again", flags);
  prof(root / "cmp" / "slow", flags + " --sim-time-scale 2");
  const std::string base = (root / "cmp" / "base").string();
  Cmd r = sb("compare " + base + " " + (root / "cmp" / "slow").string() +
             " --fail-on-regression e2e_p50:20");
  EXPECT_EQ(r.code, 5) << r.out;
  EXPECT_NE(r.out.find("regression: e2e_p50"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("REGRESSION"), std::string::npos) << r.out;

  r = sb("compare " + base + " " + (root / "cmp" / "again").string() +
         " --fail-on-regression e2e_p50:30 --fail-on-regression tpot_p50:30");
  EXPECT_EQ(r.code, 0) << r.out;

  // The JSON goes to a file: stderr may carry warnings (a run marked client_limited under
  // the sanitizers' slow client), and they are not part of the document.
  const fs::path cmp_json = root / "cmp" / "compare.json";
  r = sb("compare " + base + " " + (root / "cmp" / "slow").string() + " --format json -o " +
         cmp_json.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(slurp(cmp_json));
  bool found = false;
  for (const json& m : j["metrics"])
    if (m["metric"] == "tpot_p50") {
      found = true;
      EXPECT_TRUE(m["significant"].get<bool>());
      EXPECT_GT(m["change_pct"].get<double>(), 50);
      EXPECT_GT(m["ci_low_pct"].get<double>(), 0);
    }
  EXPECT_TRUE(found);
  r = sb("compare " + base + " " + base + " --fail-on-regression bogus:1");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST_F(ReportCli, PngExportOrAClearMessage) {
  const fs::path run = root / "png" / "r";
  prof(run, "-n 8 --concurrency 2");
  const fs::path dir = root / "png" / "charts";
  const Cmd r = sb("report " + run.string() + " -o " + (root / "png" / "r.html").string() +
                   " --png-dir " + dir.string());
  const fs::path svg = dir / "cdf-e2e-ms-in256-out128.svg";  // the run's scenario panel
  EXPECT_TRUE(fs::exists(svg));
  EXPECT_NE(slurp(svg).find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") == 0) {
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_GT(fs::file_size(dir / "cdf-e2e-ms-in256-out128.png"), 100u);
  } else {
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("rsvg-convert is not installed"), std::string::npos) << r.out;
  }
}

// Headless Chromium opens the report from disk: no console error, every chart drew elements,
// and a screenshot lands in the build folder (beside the servebench binary, wherever the test
// is run from), at 1400 px wide.
TEST_F(ReportCli, BrowserShowsEveryChart) {
  std::string chrome;
  for (const char* c : {"chromium", "chromium-browser", "google-chrome"})
    if (std::system(fmt::format("command -v {} >/dev/null 2>&1", c).c_str()) == 0) {
      chrome = c;
      break;
    }
  if (chrome.empty())
    GTEST_SKIP() << "chromium is not installed (SERVEBENCH_BROWSER_TESTS=1 "
                    "scripts/install-deps.sh installs it)";
  for (int c : {1, 2})
    prof(root / "browser" / fmt::format("c{}", c), fmt::format("-n 10 --concurrency {}", c));
  const fs::path html = root / "browser.html";
  ASSERT_EQ(sb("report -q " + (root / "browser").string() + " -o " + html.string()).code, 0);
  const fs::path profile = root / "chrome-profile";
  const std::string common = fmt::format(
      "timeout 120 {} --headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update --disable-sync --no-first-run --user-data-dir={} ",
      chrome, profile.string());
  const std::string dom_cmd = common + "--enable-logging=stderr --v=0 --dump-dom file://" +
                              html.string() + " 2>" + (root / "chrome.log").string();
  std::string dom;
  {
    FILE* p = popen(dom_cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) dom.append(buf.data(), n);
    pclose(p);
  }
  ASSERT_NE(dom.find("<svg"), std::string::npos) << slurp(root / "chrome.log");
  EXPECT_EQ(slurp(root / "chrome.log").find("CONSOLE"), std::string::npos)
      << slurp(root / "chrome.log");
  // Every chart in the parsed DOM has drawn elements.
  int charts = 0;
  for (size_t p = dom.find("<svg class=\"chart\""); p != std::string::npos;
       p = dom.find("<svg class=\"chart\"", p + 1)) {
    const std::string svg = dom.substr(p, dom.find("</svg>", p) - p);
    EXPECT_TRUE(svg.find("<polyline") != std::string::npos ||
                svg.find("<rect class=\"bar\"") != std::string::npos)
        << svg.substr(0, 200);
    ++charts;
  }
  EXPECT_GE(charts, 12);
  const fs::path shot = fs::path(SERVEBENCH_BINARY).parent_path() / "report-screenshot.png";
  fs::remove(shot);
  const int rc = std::system((common + "--window-size=1400,3000 --screenshot=" + shot.string() +
                              " file://" + html.string() + " >/dev/null 2>&1")
                                 .c_str());
  EXPECT_EQ(rc, 0);
  ASSERT_TRUE(fs::exists(shot));
  EXPECT_GT(fs::file_size(shot), 10000u);
}

}  // namespace
