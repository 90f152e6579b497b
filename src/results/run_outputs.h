#pragma once
// The end-of-run files of DIR: summary.json (pretty, schema of results/summary_json.h, its
// secrets redacted: results/summary_redact.h) and summary.csv (header + one row,
// results/summary_csv.h). Each is written with write_file_atomically (results/output_file.h):
// a temporary file in DIR renamed over the final name, so a reader never sees a half-written
// file, and a symbolic link planted at either name is refused. DIR must exist. Throws
// sb::Error naming the file on failure.
#include <string>

#include "metrics/run_summary.h"
#include "results/output_file.h"

namespace sb::results {

void write_run_outputs(const std::string& dir, const metrics::RunSummary& summary,
                       const metrics::RunInfo& info);

}  // namespace sb::results
