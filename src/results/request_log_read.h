#pragma once
// Reads a requests.jsonl back into records: the run's own results at its end (prof keeps
// none in memory, RunHooks::keep_records), `servebench summarize` after a crash.
//
// Contract: blank lines are ignored; a line that does not parse is counted in
// skipped_lines, and the first such line's number and reason kept in first_error; it never
// throws for content. last_line_cut is true when the file's last line has no newline and did
// not parse (a write cut by a kill). Records come back sorted by id.
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/request_record.h"

namespace sb::results {

struct RequestLogContents {
  std::vector<metrics::RequestRecord> records;
  int64_t skipped_lines = 0;
  std::string first_error;  // "line N: reason" of the first skipped line; empty if none
  bool last_line_cut = false;
};

// Throws sb::Error (usage) naming the path when the file cannot be opened.
RequestLogContents read_request_log(const std::string& path);

// A run's own records at its end, from the requests.jsonl it has just written and closed
// (RunHooks::keep_records = false). Every line is whole then, so a line that does not read
// back is a bug: it is said on stderr rather than hidden.
std::vector<metrics::RequestRecord> read_back_run_records(const std::string& path);

}  // namespace sb::results
