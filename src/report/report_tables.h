#pragma once
// The report's tables as plain data (header + rows of display strings), shared by the HTML
// and Markdown renderers so that both show the same numbers. Numbers come straight from each
// run's summary.json: latencies in ms with 2 decimals, rates with 2 decimals, "—" when the
// run has no such number.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/run_analysis.h"
#include "report/run_folder.h"

namespace sb::report {

struct Table {
  std::string id;  // for the HTML data-table attribute
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// "12.35" (decimals given), "—" for nullopt.
std::string cell(std::optional<double> v, int decimals = 2);

// One row per run: load, requests, error rate, throughput, goodput, p50/p99 of TTFT, TPOT,
// ITL, e2e.
Table run_summary_table(const std::vector<RunData>& runs);

// The reference study's table, one per load: rows = backends, columns = scenarios, cells =
// "P99 e2e X ms · Y req/s" of the run of that backend, scenario and load, followed by
// " · BLEU B · chrF C" when the run has quality scores (summary.json "quality").
std::vector<Table> comparison_tables(const std::vector<RunGroup>& groups);

// Per run and rule: "PASS 123.40" / "FAIL 250.10" (empty table without rules).
Table sla_table(const std::vector<RunData>& runs, const std::vector<SlaRule>& rules);

// Metric definitions (docs/metrics.md, docs/metrics.md): term -> definition.
const std::vector<std::pair<std::string, std::string>>& glossary();

}  // namespace sb::report
