#pragma once
// `servebench report`: one self-contained HTML file (inline CSS and inline SVG; no script, no
// external reference) from loaded runs. Sections, in order: notes on skipped or bad input, SLA
// verdicts, recommendation (recommendation.h), the study's tables (study_tables.h; the
// per-load comparison tables folded under them), energy, cost and hardware (economics.h), charts
// against load (throughput, latency percentiles, error rate, goodput), CDFs of TTFT/TPOT/ITL/e2e,
// per-run time series, a run summary table, resource use, the effective configuration and host of
// each run, and the metric glossary.
#include <string>
#include <vector>

#include "report/load_rules.h"
#include "report/run_analysis.h"
#include "report/run_folder.h"
#include "report/study.h"

namespace sb::report {

struct ReportOptions {
  std::string title = "servebench report";
  std::vector<SlaRule> sla;
  double max_error_rate = kDefaultMaxErrorRate;  // fraction; a run above it is not stable
  int64_t min_requests = kDefaultMinRequests;    // the study's smallest judged sample
  std::optional<double> at_concurrency;          // the study's named load (study.h)
  std::string tool_version;
  // The backend the hardware table's output agreement is measured against (economics.h);
  // empty: the first backend.
  std::string quality_reference;
};

// The study (study.h) of `runs` under these options.
Study study_of(const std::vector<RunData>& runs, const ReportOptions& options);

std::string render_html_report(const std::vector<RunData>& runs, const ReportOptions& options);

// Every chart of the report as (id, standalone-able inline SVG), for PNG/SVG export.
std::vector<std::pair<std::string, std::string>> report_charts(const std::vector<RunData>& runs,
                                                               const ReportOptions& options);

}  // namespace sb::report
