#pragma once
// The study's tables (study.h) as display tables, for the HTML and Markdown reports and the
// terminal, in the study's order:
//   study-p99   P99 e2e latency at the named load: rows backends, columns scenarios;
//   study-peak  peak QPS and where, knee, max stable load, why it stops: backend × scenario;
//   study-gpu   peak GPU memory (MiB), SM and memory-bandwidth utilisation (mean %) at the
//               named load: backend × scenario;
//   study-ttft  TTFT p50 / p99 at the named load: backend × scenario.
// A GPU utilisation mean needs 5 telemetry samples, else it reads "insufficient".
// Every cell carries n and its 95% interval; titles end in "— simulated at ×S" when runs were
// time-scaled.
#include <string>
#include <vector>

#include "report/report_tables.h"
#include "report/study.h"

namespace sb::report {

std::vector<Table> study_tables(const Study& study);

// The note every rendering prints above the tables: the named load and why, the SLOs, the
// minimum sample size, the time scale ("" parts left out).
std::vector<std::string> study_notes(const Study& study);

// The terminal rendering: notes, the tables as aligned text, the recommendation.
std::string study_text(const Study& study);

// Aligned plain-text table (UTF-8 aware widths).
std::string text_table(const Table& t);

}  // namespace sb::report
