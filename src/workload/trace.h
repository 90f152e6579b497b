#pragma once
// A production trace replayed (--trace FILE --trace-format F [--trace-speedup X]
// [--trace-window START:END] [--trace-block-tokens B]): its entries in time order, the window
// kept, and the schedule they give. Lines are parsed by trace_line.h; prompts are built by
// trace_prompt.h; the engine sends entry i at offsets[i] after the measured phase's start
// through the open loop's path (engine/load_phases.h measured_schedule), so dispatch delay and
// late sends are measured against the trace exactly as against a generated schedule.
//
// Contract:
//   - a bad line (no timestamp, a number that does not parse, a missing field) is skipped and
//     counted; warnings name the file and line of the first kMaxNamedIssues of them;
//   - a blank line is ignored; a CSV trace's first non-blank line is its header;
//   - timestamps out of order are sorted (stably: equal times keep the file's order), with a
//     warning naming the first line earlier than the one before it;
//   - the window START:END is in the trace's seconds since its first entry (after sorting):
//     entries with START <= t < END are kept (START defaults to 0, END to after the last);
//   - offsets[i] = (t_i - t_first - START) / speedup: an absolute schedule (the first kept
//     entry is due at 0 only when it is at START);
//   - no entry in the window (or none parsed) is a usage error naming the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "workload/trace_line.h"

namespace sb::workload {

struct TraceWindow {
  std::optional<double> start_s, end_s;  // trace seconds since the first entry
  bool empty() const { return !start_s && !end_s; }
};
// "START:END", "START:" or ":END", seconds (units allowed: 90s, 10m). Throws sb::usage_error
// naming --trace-window: no colon, a bad number, END <= START.
TraceWindow parse_trace_window(std::string_view text);
// The canonical "START:END" (a missing side empty), e.g. "60:", "10:20.5".
std::string to_string(const TraceWindow& w);

struct TraceSpec {
  std::string path;  // the trace file
  TraceFormat format = TraceFormat::jsonl;
  double speedup = 1.0;  // 0.001 .. 1e6: 2 replays the trace twice as fast
  TraceWindow window;
  int64_t block_tokens = 512;  // tokens a hash id stands for (Mooncake: 512)
};
// Throws sb::usage_error naming --trace-speedup or --trace-block-tokens.
void validate(const TraceSpec& spec);

struct TraceIssue {
  int64_t line = 0;  // 1-based
  std::string message;
};

inline constexpr size_t kMaxNamedIssues = 5;

// What parse_trace read: pure, text in.
struct TraceParse {
  std::vector<TraceEntry> entries;  // every good line, sorted by t_ns (stable)
  int64_t lines = 0;                // non-blank lines, a CSV header excluded
  int64_t skipped = 0;              // bad lines
  std::vector<TraceIssue> issues;   // the first kMaxNamedIssues bad lines
  int64_t out_of_order = 0;         // good lines earlier than the good line before them
  int64_t first_out_of_order_line = 0;
  std::string header_error;  // a CSV trace whose header lacks a column: nothing else parsed
};
TraceParse parse_trace(std::string_view text, TraceFormat format);

// The trace as replayed.
struct Trace {
  TraceSpec spec;
  std::vector<TraceEntry> entries;  // kept by the window, in time order
  std::vector<Nanos> offsets;       // entries[i] is due offsets[i] after the measured start
  int64_t lines = 0, skipped = 0, out_of_order = 0;
  int64_t outside_window = 0;  // good entries the window left out
  double window_start_s = 0;   // START (0 without one)
  std::optional<double> window_end_s;
  double span_s = 0;  // trace seconds from START to the last kept entry
  // For stderr, one message each (without the "servebench: warning: " lead): bad lines by
  // file:line, the sort, the window.
  std::vector<std::string> warnings;

  // The mean rate the schedule sends at: (n - 1) / (last offset - first offset), or n per
  // second when every entry is due at once.
  double mean_rate_per_s() const;
};

// The window and schedule of a parse; throws sb::usage_error naming spec.path when nothing is
// left (a bad header, no good line, an empty window).
Trace select_trace(TraceParse parsed, const TraceSpec& spec);

// Reads spec.path and selects: parse_trace + select_trace. Throws sb::usage_error naming
// --trace and the file when it cannot be read.
Trace load_trace(const TraceSpec& spec);

}  // namespace sb::workload
