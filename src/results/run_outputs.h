#pragma once
// The end-of-run files of DIR: summary.json (pretty, schema of results/summary_json.h) and
// summary.csv (header + one row, results/summary_csv.h). Each is written to a temporary file in
// DIR and renamed over the final name, so a reader never sees a half-written file. DIR must
// exist. Throws sb::Error naming the file on failure.
#include <string>

#include "metrics/run_summary.h"

namespace sb::results {

void write_run_outputs(const std::string& dir, const metrics::RunSummary& summary,
                       const metrics::RunInfo& info);

// Writes `content` to `path` atomically (temp file in the same directory + rename).
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace sb::results
