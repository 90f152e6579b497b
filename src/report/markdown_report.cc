#include "report/markdown_report.h"

#include <iterator>

#include <fmt/format.h>

#include "report/economics.h"
#include "report/html_report.h"
#include "report/recommendation.h"
#include "report/report_tables.h"
#include "report/study_tables.h"

namespace sb::report {

namespace {

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string markdown_table(const Table& t) {
  std::string out;
  auto it = std::back_inserter(out);
  out += "|";
  for (const auto& h : t.header) fmt::format_to(it, " {} |", md_cell(h));
  out += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) fmt::format_to(it, " {} |", md_cell(c));
    out += "\n";
  }
  return out;
}

std::string render_markdown_report(const std::vector<RunData>& runs, const ReportOptions& o) {
  const std::vector<RunGroup> groups = group_runs(runs);
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "# {}\n\n{} run{}, {} backend/scenario group{}.\n\n", o.title, runs.size(),
                 runs.size() == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s");
  std::vector<std::string> notes;
  for (const RunData& r : runs)
    for (const std::string& w : r.warnings) notes.push_back(w);
  if (!notes.empty()) {
    out += "## Notes on the input\n\n";
    for (const auto& n : notes) fmt::format_to(it, "- {}\n", n);
    out += "\n";
  }
  if (!o.sla.empty()) {
    out += "## SLA compliance\n\n";
    out += markdown_table(sla_table(runs, o.sla)) + "\n";
  }
  const Study study = study_of(runs, o);
  out += "## Recommendation\n\n";
  for (const Recommendation& r : recommend(study)) fmt::format_to(it, "- {}\n", r.text);
  out += "\n## The study's tables\n\n";
  for (const std::string& n : study_notes(study)) fmt::format_to(it, "{}\n\n", n);
  for (const Table& t : study_tables(study))
    fmt::format_to(it, "### {}\n\n{}\n", t.title, markdown_table(t));
  if (has_economics(runs)) {
    out += "## Energy, cost and hardware\n\n";
    for (const Cheapest& c : cheapest_meeting_slo(study)) fmt::format_to(it, "- {}\n", c.text);
    const Table hw = hardware_table(study, o.quality_reference);
    fmt::format_to(it, "\n### {}\n\n{}\n", hw.title, markdown_table(hw));
  }
  out += "## Runs\n\n" + markdown_table(run_summary_table(runs));
  return out;
}

}  // namespace sb::report
