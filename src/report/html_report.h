#pragma once
// `servebench report`: one self-contained HTML file (inline CSS and inline SVG; no script, no
// external reference) from loaded runs. Sections, in order: notes on skipped or bad input, SLA
// verdicts, recommendation, the cross-backend comparison tables, peak QPS and max stable
// load, charts against load (throughput, latency percentiles, error rate, goodput), CDFs of
// TTFT/TPOT/ITL/e2e, per-run time series, a run summary table, resource use, the effective
// configuration and host of each run, and the metric glossary.
#include <string>
#include <vector>

#include "report/run_analysis.h"
#include "report/run_folder.h"

namespace sb::report {

struct ReportOptions {
  std::string title = "servebench report";
  std::vector<SlaRule> sla;
  double max_error_rate = 0.01;  // fraction; a run above it is not stable
  std::string tool_version;
};

std::string render_html_report(const std::vector<RunData>& runs, const ReportOptions& options);

// Every chart of the report as (id, standalone-able inline SVG), for PNG/SVG export.
std::vector<std::pair<std::string, std::string>> report_charts(const std::vector<RunData>& runs,
                                                               const ReportOptions& options);

}  // namespace sb::report
