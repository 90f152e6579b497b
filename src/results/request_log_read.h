#pragma once
// Reads a requests.jsonl back: the run's own results at its end (prof keeps none in memory,
// RunHooks::keep_records), `servebench summarize` after a crash, report and calibrate.
//
// Contract: blank lines are ignored; a line that does not parse is counted in
// skipped_lines, and the first such line's number and reason kept in first_error; it never
// throws for content. last_line_cut is true when the file's last line has no newline and did
// not parse (a write cut by a kill). Records come back sorted by id.
#include <cstddef>
#include <cstdint>
#include <functional>
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

// What scan_request_log read: as RequestLogContents, without the records.
struct RequestLogScan {
  int64_t records = 0;  // delivered (by the last pass)
  int64_t skipped_lines = 0;
  std::string first_error;
  bool last_line_cut = false;
  bool reread = false;  // the log was too far out of order: delivered again from a whole read
};

// Records held at most by scan_request_log's reordering (~430 bytes each).
inline constexpr size_t kReorderWindow = size_t{1} << 18;

// Every record of a requests.jsonl to on_record, in read_request_log's order (by id, ties in
// file order), holding at most `window` of them: a log is written in completion order, so a
// record lies within about the requests in flight of its place by id. Should one lie further
// (found when it comes), on_restart() is called, the caller drops what it gathered, and every
// record is delivered again from a whole read (read_request_log: memory for all of them).
// Throws as read_request_log; counts the skipped lines the same way.
RequestLogScan scan_request_log(const std::string& path,
                                const std::function<void(const metrics::RequestRecord&)>& on_record,
                                const std::function<void()>& on_restart,
                                size_t window = kReorderWindow);

}  // namespace sb::results
