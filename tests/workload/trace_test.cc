// A whole trace (workload/trace.h): bad lines skipped and named, sorting, the window and the
// speedup's offsets; trace prompts (workload/trace_prompt.h) sharing exact prefixes; and the
// prompt source replaying a trace.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"
#include "workload/prompt_source.h"
#include "workload/token_estimate.h"
#include "workload/trace.h"
#include "workload/trace_prompt.h"

namespace sb::workload {
namespace {

using namespace std::chrono_literals;

// A Mooncake trace written by hand: two sessions sharing block 0, one re-using a whole prefix,
// a bad line (no timestamp), a blank line and one line out of order.
constexpr const char* kMooncake =
    "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 40, \"hash_ids\": [0, 1, 2]}\n"
    "{\"timestamp\": 0, \"input_length\": 700, \"output_length\": 12, \"hash_ids\": [0, 3]}\n"
    "\n"
    "{\"input_length\": 10, \"output_length\": 5}\n"
    "{\"timestamp\": 2500, \"input_length\": 1500, \"output_length\": 64, \"hash_ids\": [0, 1, "
    "4]}\n"
    "{\"timestamp\": 1000, \"input_length\": 512, \"output_length\": 7, \"hash_ids\": [5]}\n"
    "{\"timestamp\": 4000, \"input_length\": 300, \"output_length\": 9, \"hash_ids\": [6]}\n";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(TraceParse, SkipsBadLinesAndSortsStably) {
  const TraceParse p = parse_trace(kMooncake, TraceFormat::mooncake);
  EXPECT_EQ(p.lines, 6);  // the blank line is not counted
  EXPECT_EQ(p.skipped, 1);
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].line, 4);
  EXPECT_EQ(p.issues[0].message, "no \"timestamp\" (the arrival time)");
  EXPECT_EQ(p.out_of_order, 1);
  EXPECT_EQ(p.first_out_of_order_line, 6);
  ASSERT_EQ(p.entries.size(), 5u);
  std::vector<int64_t> lines;
  for (const auto& e : p.entries) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 2, 6, 5, 7}));  // equal times keep the file's order
}

TEST(TraceParse, CrLfGivesTheSameEntries) {
  std::string crlf;
  for (char c : std::string(kMooncake)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const TraceParse a = parse_trace(kMooncake, TraceFormat::mooncake);
  const TraceParse b = parse_trace(crlf, TraceFormat::mooncake);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].t_ns, b.entries[i].t_ns);
    EXPECT_EQ(a.entries[i].hash_ids, b.entries[i].hash_ids);
  }
}

TEST(TraceParse, CsvHeaderThenRows) {
  const TraceParse p = parse_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:47.1805900,,44\n"
      "2023-11-16 18:15:48.6805900,1200,3\n",
      TraceFormat::azure);
  EXPECT_EQ(p.lines, 3);
  EXPECT_EQ(p.skipped, 1);
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].line, 3);
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[1].t_ns - p.entries[0].t_ns, 2'000'000'000);
  const TraceParse h = parse_trace("when,in,out\n1,2,3\n", TraceFormat::burstgpt);
  EXPECT_NE(h.header_error.find("line 1: the header has no \"Timestamp\" column"),
            std::string::npos);
  EXPECT_TRUE(h.entries.empty());
}

TEST(TraceSelect, OffsetsAreTraceTimesOverSpeedup) {
  TraceSpec spec;
  spec.path = "t.jsonl";
  spec.format = TraceFormat::mooncake;
  spec.speedup = 2;
  const Trace t = select_trace(parse_trace(kMooncake, TraceFormat::mooncake), spec);
  EXPECT_EQ(t.offsets, (std::vector<Nanos>{0ms, 0ms, 500ms, 1250ms, 2000ms}));
  EXPECT_EQ(t.entries[2].input_tokens, 512);
  EXPECT_DOUBLE_EQ(t.span_s, 4.0);
  EXPECT_DOUBLE_EQ(t.mean_rate_per_s(), 2.0);  // 4 gaps over 2 s
  EXPECT_EQ(t.skipped, 1);
  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_EQ(t.warnings[0],
            "--trace 't.jsonl' line 4: no \"timestamp\" (the arrival time); skipped");
  EXPECT_EQ(t.warnings[1],
            "--trace 't.jsonl': timestamps out of order (line 6 is earlier than the line before "
            "it; 1 such line); replaying in time order");
}

TEST(TraceSelect, WindowKeepsStartToEnd) {
  TraceSpec spec;
  spec.path = "t.jsonl";
  spec.format = TraceFormat::mooncake;
  spec.window = parse_trace_window("1:4");
  const Trace t = select_trace(parse_trace(kMooncake, TraceFormat::mooncake), spec);
  ASSERT_EQ(t.entries.size(), 2u);  // at 1 s and 2.5 s; 4 s is END, left out
  EXPECT_EQ(t.offsets, (std::vector<Nanos>{0ms, 1500ms}));
  EXPECT_EQ(t.outside_window, 3);
  EXPECT_DOUBLE_EQ(t.span_s, 1.5);
  spec.window = parse_trace_window("0.5:");  // the first kept entry is due 0.5 s in
  const Trace u = select_trace(parse_trace(kMooncake, TraceFormat::mooncake), spec);
  EXPECT_EQ(u.offsets, (std::vector<Nanos>{500ms, 2000ms, 3500ms}));
  EXPECT_EQ(to_string(parse_trace_window(":60")), ":60");
  EXPECT_EQ(to_string(parse_trace_window("1m:2m")), "60:120");
}

TEST(TraceSelect, NothingLeftIsAnError) {
  TraceSpec spec;
  spec.path = "t.jsonl";
  spec.format = TraceFormat::mooncake;
  spec.window = parse_trace_window("10:20");
  EXPECT_EQ(error_of([&] { select_trace(parse_trace(kMooncake, TraceFormat::mooncake), spec); }),
            "--trace 't.jsonl': no entry in --trace-window 10:20 (the trace's entries run from 0 "
            "to 4 s after its first)");
  spec.window = {};
  EXPECT_EQ(error_of([&] { select_trace(parse_trace("", TraceFormat::mooncake), spec); }),
            "--trace 't.jsonl' holds no usable mooncake entry: the file is empty");
  EXPECT_EQ(
      error_of([&] { select_trace(parse_trace("{\"t_s\": 1}\n", TraceFormat::mooncake), spec); }),
      "--trace 't.jsonl' holds no usable mooncake entry (1 bad lines; the first, line 1: "
      "no \"timestamp\" (the arrival time))");
  EXPECT_NE(error_of([] { parse_trace_window("60"); }).find("--trace-window '60': no ':'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_trace_window("60:30"); }).find("END must be after START"),
            std::string::npos);
  spec.speedup = 0;
  EXPECT_NE(error_of([&] { validate(spec); }).find("--trace-speedup 0"), std::string::npos);
  spec.speedup = 1;
  spec.block_tokens = 0;
  EXPECT_NE(error_of([&] { validate(spec); }).find("--trace-block-tokens 0"), std::string::npos);
}

TEST(TracePrompt, SharedHashIdsShareTheExactPrefix) {
  const int64_t block = 512;
  TraceEntry a{.t_ns = 0, .input_tokens = 1200, .output_tokens = 1, .hash_ids = {0, 1, 2}};
  TraceEntry b{.t_ns = 0, .input_tokens = 1500, .output_tokens = 1, .hash_ids = {0, 1, 4}};
  TraceEntry c{.t_ns = 0, .input_tokens = 700, .output_tokens = 1, .hash_ids = {0, 3}};
  const std::string pa = trace_prompt(nullptr, 0, 10, a, block);
  const std::string pb = trace_prompt(nullptr, 0, 11, b, block);
  const std::string pc = trace_prompt(nullptr, 0, 12, c, block);
  EXPECT_EQ(estimate_tokens(pa), 1200);
  EXPECT_EQ(pa.size(), 1200u * 4);
  EXPECT_EQ(pb.size(), 1500u * 4);
  EXPECT_EQ(pc.size(), 700u * 4);
  const auto common = [](const std::string& x, const std::string& y) {
    size_t n = 0;
    while (n < x.size() && n < y.size() && x[n] == y[n]) ++n;
    return n;
  };
  EXPECT_EQ(common(pa, pb), 2u * block * 4);  // blocks 0 and 1, and not a byte more
  EXPECT_EQ(common(pa, pc), 1u * block * 4);
  EXPECT_EQ(pa.substr(0, block * 4), trace_block_text(nullptr, 0, 0, block));
  // Longer than its blocks: the rest is the request's own text.
  TraceEntry d{.t_ns = 0, .input_tokens = 600, .output_tokens = 1, .hash_ids = {0}};
  const std::string pd = trace_prompt(nullptr, 0, 13, d, block);
  EXPECT_EQ(pd.size(), 600u * 4);
  EXPECT_EQ(common(pd, pa), 1u * block * 4);
  // No hash ids: a synthetic prompt of the length, unique to the request.
  TraceEntry e{.t_ns = 0, .input_tokens = 50, .output_tokens = 1, .hash_ids = {}};
  const std::string pe = trace_prompt(nullptr, 0, 14, e, block);
  EXPECT_EQ(pe.size(), 200u);
  EXPECT_EQ(pe.rfind("Request 14: ", 0), 0u);
}

TEST(TracePromptSource, EntriesInTurnFromTheFirstMeasuredId) {
  TraceSpec spec;
  spec.path = "t.jsonl";
  spec.format = TraceFormat::mooncake;
  auto trace = std::make_shared<const Trace>(
      select_trace(parse_trace(kMooncake, TraceFormat::mooncake), spec));
  WorkloadConfig c;
  c.trace = trace;
  c.trace_first_id = 2;  // two warm-up requests
  const PromptSource src(c);
  for (uint64_t i = 0; i < 5; ++i) {
    const WorkItem item = src.item(2 + i);
    EXPECT_EQ(item.input_tokens, trace->entries[i].input_tokens) << i;
    EXPECT_EQ(item.max_tokens, trace->entries[i].output_tokens) << i;
    EXPECT_EQ(item.prompt, trace_prompt(nullptr, 0, 2 + i, trace->entries[i], 512)) << i;
  }
  EXPECT_EQ(src.item(7).prompt.substr(0, 100), src.item(2).prompt.substr(0, 100));  // cycles
  // A warm-up request has entry id's lengths and a prompt of its own (no shared blocks).
  const WorkItem warm = src.item(0);
  EXPECT_EQ(warm.input_tokens, trace->entries[0].input_tokens);
  EXPECT_EQ(warm.prompt.rfind("Request 0: ", 0), 0u);
  // Other prompt sources and length settings are refused.
  c.scenario = "chat";
  EXPECT_NE(error_of([&] { PromptSource s(c); }).find("--trace gives every request's prompt"),
            std::string::npos);
}

TEST(TraceLoad, UnreadableFileIsNamed) {
  TraceSpec spec;
  spec.path = "/nonexistent/servebench-trace.jsonl";
  EXPECT_NE(error_of([&] {
              load_trace(spec);
            }).find("--trace '/nonexistent/servebench-trace.jsonl': cannot read the file"),
            std::string::npos);
}

}  // namespace
}  // namespace sb::workload
