#include "cli/report_command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "report/economics.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/run_folder.h"
#include "report/study_tables.h"
#include "report/svg_chart.h"
#include "results/run_outputs.h"

namespace sb::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> paths;
  std::vector<std::string> labels;  // NAME=DIR
  std::string output;
  std::string format = "html";
  std::vector<std::string> sla;
  double max_error_rate = report::kDefaultMaxErrorRate;
  int64_t min_requests = report::kDefaultMinRequests;
  double at_concurrency = 0;  // 0: the highest concurrency run by every backend
  std::string reference;      // the hardware table's agreement reference (default: first)
  std::string title = "servebench report";
  std::string png_dir;
  bool quiet = false;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Writes every chart as DIR/ID.svg, then converts each to DIR/ID.png with rsvg-convert.
void export_png(const std::vector<report::RunData>& runs, const report::ReportOptions& o,
                const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw usage_error(fmt::format("--png-dir '{}': cannot create it ({})", dir, ec.message()));
  const auto charts = report::report_charts(runs, o);
  for (const auto& [id, svg] : charts)
    results::write_file_atomically(dir + "/" + id + ".svg", report::svg::standalone_svg(svg));
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0)
    throw Error(fmt::format(
        "--png-dir: rsvg-convert is not installed (Debian: apt-get install librsvg2-bin); "
        "the {} charts were written as SVG to {}/",
        charts.size(), dir));
  for (const auto& [id, svg] : charts) {
    const std::string base = dir + "/" + id;
    const std::string cmd = fmt::format("rsvg-convert -b white -o {} {}",
                                        shell_quote(base + ".png"), shell_quote(base + ".svg"));
    if (std::system(cmd.c_str()) != 0)
      throw Error(fmt::format("--png-dir: rsvg-convert failed on {}.svg", base));
  }
  fmt::print(stderr, "servebench: {} charts written to {}/ (SVG and PNG)\n", charts.size(), dir);
}

int run_report(const ReportFlags& f) {
  if (f.format != "html" && f.format != "md")
    throw usage_error(fmt::format("--format '{}': use html or md", f.format));
  if (!(f.max_error_rate >= 0 && f.max_error_rate <= 1))
    throw usage_error("--max-error-rate: give a fraction between 0 and 1, e.g. 0.01");
  std::vector<std::string> paths = f.paths;
  for (const std::string& l : f.labels) {
    if (l.find('=') == std::string::npos || l.front() == '=')
      throw usage_error(fmt::format("--label '{}': use NAME=DIR", l));
    paths.push_back(l);
  }
  if (paths.empty())
    throw usage_error("report: give at least one run folder (or --label NAME=DIR)");

  report::ReportOptions o;
  o.title = f.title;
  o.max_error_rate = f.max_error_rate;
  o.tool_version = SERVEBENCH_VERSION;
  if (f.min_requests < 1) throw usage_error("--min-requests: give a count of at least 1, e.g. 30");
  o.min_requests = f.min_requests;
  if (f.at_concurrency < 0)
    throw usage_error("--at-concurrency: give a concurrency level, e.g. 200");
  if (f.at_concurrency > 0) o.at_concurrency = f.at_concurrency;
  o.quality_reference = f.reference;
  for (const std::string& s : f.sla) o.sla.push_back(report::parse_sla(s));

  const std::vector<report::RunData> runs = report::load_runs(paths);
  if (!f.quiet)
    for (const auto& r : runs)
      for (const auto& w : r.warnings) fmt::print(stderr, "servebench: warning: {}\n", w);

  // The study's tables on the terminal (stdout), unless stdout carries the report itself.
  const report::Study study = report::study_of(runs, o);
  if (!f.reference.empty() && std::find(study.backends.begin(), study.backends.end(),
                                        f.reference) == study.backends.end()) {
    std::string names;
    for (const auto& b : study.backends) names += (names.empty() ? "" : ", ") + b;
    throw usage_error(fmt::format("--reference '{}': not a backend of these runs (they are: {})",
                                  f.reference, names));
  }
  const bool to_stdout = f.output == "-";
  if (!f.quiet && !to_stdout)
    fmt::print("{}{}", report::study_text(study), report::economics_text(study));

  const std::string text = f.format == "md" ? report::render_markdown_report(runs, o)
                                            : report::render_html_report(runs, o);
  const std::string out =
      f.output.empty() ? (f.format == "md" ? "report.md" : "report.html") : f.output;
  if (out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    results::write_file_atomically(out, text);
    if (!f.quiet)
      fmt::print(stderr, "servebench: report of {} run{} written to {}\n", runs.size(),
                 runs.size() == 1 ? "" : "s", out);
  }
  if (!f.png_dir.empty()) export_png(runs, o, f.png_dir);
  return 0;
}

}  // namespace

std::function<int()> add_report_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "report", "Write an HTML (or Markdown) report from run folders or folders of runs");
  auto f = std::make_shared<ReportFlags>();
  app->add_option("paths", f->paths,
                  "Run folders (with summary.json), folders of runs, or NAME=DIR");
  app->add_option("--label", f->labels,
                  "NAME=DIR: the runs in DIR (a run or a folder of runs) belong to backend NAME");
  app->add_option("-o,--output", f->output,
                  "Output file (default report.html, or report.md with --format md; - = stdout)");
  app->add_option("--format", f->format, "html (default) or md (Markdown summary)");
  app->add_option("--sla", f->sla,
                  "SLO to check, repeatable: p99_e2e_ms:200, p90_ttft_ms:500, error_rate_pct:1, "
                  "min_rps:10, min_goodput_pct:95");
  app->add_option(
      "--max-error-rate", f->max_error_rate,
      "A run above this error rate (fraction) is not stable (default 0.05, the plan's)");
  app->add_option("--min-requests", f->min_requests,
                  "Smallest sample a study cell is judged from; fewer reads \"insufficient\" "
                  "(default 30)");
  app->add_option("--at-concurrency", f->at_concurrency,
                  "The load of the study's per-load tables (default: the highest concurrency "
                  "run by every backend)");
  app->add_option("--title", f->title, "Report title");
  app->add_option("--reference", f->reference,
                  "Backend the hardware table's output agreement (BLEU, chrF, exact match) is "
                  "measured against (default: the first backend)");
  app->add_option("--png-dir", f->png_dir,
                  "Also write every chart as DIR/ID.svg and DIR/ID.png (needs rsvg-convert)");
  app->add_flag("-q,--quiet", f->quiet, "No messages on stderr except errors");
  return [f] { return run_report(*f); };
}

}  // namespace sb::cli
