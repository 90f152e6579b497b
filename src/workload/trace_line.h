#pragma once
// One line of a production trace (--trace FILE --trace-format FORMAT): pure parsers, text in,
// one entry or the reason the line is bad out. Reading the file, sorting, the window and the
// schedule are trace.h's; turning hash ids into prompt text is trace_prompt.h's.
//
// The formats (written from each trace's own documentation):
//   mooncake  JSONL (kvcache-ai/Mooncake FAST'25 traces): {"timestamp": MS, "input_length": N,
//             "output_length": N, "hash_ids": [ID, ...]}; timestamp in milliseconds since the
//             trace's first request; each hash id names one block of 512 prompt tokens (the
//             last one may be partial), equal leading ids meaning an equal prompt prefix.
//   burstgpt  CSV with a header (HPMLL/BurstGPT): Timestamp (seconds since the trace's
//             start), Model, Request tokens, Response tokens, Total tokens, Log Type (newer
//             releases add Session ID and Elapsed time; columns are found by header name).
//             A failed request has Response tokens 0.
//   azure     CSV with a header (Azure/AzurePublicDataset AzureLLMInferenceTrace_*.csv):
//             TIMESTAMP (a UTC date-time "2023-11-16 18:15:46.6805900", fractional seconds to
//             100 ns, an optional "Z" or "+HH:MM" offset), ContextTokens, GeneratedTokens.
//   jsonl     servebench's own: {"t_s": SECONDS, "input_tokens": N, "output_tokens": N,
//             "hash_ids": [ID, ...] (optional, as Mooncake's)}.
// Lengths are whole numbers; input >= 1, output >= 0 (0, a failed request in BurstGPT, is sent
// asking for 1 token). Timestamps are kept in whole nanoseconds of the trace's own clock.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::workload {

enum class TraceFormat { mooncake, burstgpt, azure, jsonl };

// "mooncake, burstgpt, azure or jsonl": for messages.
inline constexpr std::string_view kTraceFormats = "mooncake, burstgpt, azure or jsonl";
std::optional<TraceFormat> trace_format_from_string(std::string_view name);
// As above; throws sb::usage_error naming --trace-format and kTraceFormats.
TraceFormat parse_trace_format(std::string_view name);
std::string_view to_string(TraceFormat format);

struct TraceEntry {
  int64_t t_ns = 0;  // the trace's timestamp (its own clock and epoch) in nanoseconds
  int64_t input_tokens = 1;
  int64_t output_tokens = 1;       // as recorded (0 allowed: a failed request)
  std::vector<uint64_t> hash_ids;  // prompt blocks (mooncake, jsonl); empty: none
  int64_t line = 0;                // 1-based line of the file
};

// A line's entry, or why it is bad (error non-empty, entry meaningless).
struct TraceLine {
  TraceEntry entry;
  std::string error;
  bool ok() const { return error.empty(); }
};

// One JSON line of a mooncake or jsonl trace.
TraceLine parse_trace_json_line(std::string_view line, TraceFormat format);

// The columns of a CSV trace, found by name in its header line.
struct CsvColumns {
  int timestamp = -1, input = -1, output = -1;
  int count = 0;  // columns in the header
};
// The header of a burstgpt or azure trace; nullopt with `why` set when a column is missing.
std::optional<CsvColumns> parse_trace_csv_header(std::string_view line, TraceFormat format,
                                                 std::string& why);
// One data line of a burstgpt or azure trace.
TraceLine parse_trace_csv_line(std::string_view line, const CsvColumns& columns,
                               TraceFormat format);

// "YYYY-MM-DD HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]" ('T' also separates date and time) as
// nanoseconds since 1970-01-01 UTC; fraction digits beyond 9 are dropped. nullopt when it is
// not such a date-time.
std::optional<int64_t> parse_datetime_ns(std::string_view text);

}  // namespace sb::workload
