#pragma once
// `servebench report --format md`: a Markdown summary for pull requests, with the same tables
// and numbers as the HTML report (report_tables.h) but no charts.
#include <string>
#include <vector>

#include "report/html_report.h"
#include "report/report_tables.h"

namespace sb::report {

std::string render_markdown_report(const std::vector<RunData>& runs, const ReportOptions& options);

// One table as GitHub Markdown ('|' in cells escaped).
std::string markdown_table(const Table& t);

}  // namespace sb::report
