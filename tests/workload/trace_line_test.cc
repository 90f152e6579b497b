// One line of each trace format (workload/trace_line.h), from literal samples written by hand
// after each format's documentation: Mooncake's FAST'25 trace README (JSONL: timestamp in ms,
// input_length, output_length, hash_ids), BurstGPT's README (CSV: Timestamp in s, Model,
// Request tokens, Response tokens, Total tokens, Log Type), the Azure LLM inference trace's
// README (CSV: TIMESTAMP date-time, ContextTokens, GeneratedTokens) and servebench's jsonl.
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"
#include "workload/trace_line.h"

namespace sb::workload {
namespace {

constexpr int64_t kSec = 1'000'000'000;

TraceEntry good_json(std::string_view line, TraceFormat f) {
  const TraceLine l = parse_trace_json_line(line, f);
  EXPECT_TRUE(l.ok()) << line << ": " << l.error;
  return l.entry;
}

std::string bad_json(std::string_view line, TraceFormat f) {
  const TraceLine l = parse_trace_json_line(line, f);
  EXPECT_FALSE(l.ok()) << line;
  return l.error;
}

TEST(TraceLine, MooncakeEveryField) {
  const TraceEntry e = good_json(
      R"({"timestamp": 3052, "input_length": 1300, "output_length": 96, "hash_ids": [0, 7, 8]})",
      TraceFormat::mooncake);
  EXPECT_EQ(e.t_ns, int64_t{3052} * 1'000'000);  // milliseconds
  EXPECT_EQ(e.input_tokens, 1300);
  EXPECT_EQ(e.output_tokens, 96);
  EXPECT_EQ(e.hash_ids, (std::vector<uint64_t>{0, 7, 8}));
  // Key order and extra keys do not matter; hash_ids may be absent or empty.
  const TraceEntry f =
      good_json(R"({"output_length": 1, "session_id": "s1", "input_length": 7, "timestamp": 0})",
                TraceFormat::mooncake);
  EXPECT_EQ(f.t_ns, 0);
  EXPECT_EQ(f.input_tokens, 7);
  EXPECT_TRUE(f.hash_ids.empty());
  EXPECT_EQ(good_json(R"({"timestamp": 1.5, "input_length": 2, "output_length": 3})",
                      TraceFormat::mooncake)
                .t_ns,
            1'500'000);
}

TEST(TraceLine, MooncakeBadLines) {
  const auto f = TraceFormat::mooncake;
  EXPECT_NE(bad_json(R"({"input_length": 10, "output_length": 5})", f).find("no \"timestamp\""),
            std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": "soon", "input_length": 10, "output_length": 5})", f)
                .find("\"timestamp\" is not a number of milliseconds"),
            std::string::npos);
  EXPECT_NE(
      bad_json(R"({"timestamp": -4, "input_length": 10, "output_length": 5})", f).find("timestamp"),
      std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": 4, "output_length": 5})", f).find("no \"input_length\""),
            std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": 4, "input_length": 0, "output_length": 5})", f)
                .find("\"input_length\" is not a whole number from 1"),
            std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": 4, "input_length": 2.5, "output_length": 5})", f)
                .find("input_length"),
            std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": 4, "input_length": 9})", f).find("no \"output_length\""),
            std::string::npos);
  EXPECT_NE(bad_json(R"({"timestamp": 4, "input_length": 9, "output_length": 1, "hash_ids": 3})", f)
                .find("not an array"),
            std::string::npos);
  EXPECT_NE(
      bad_json(R"({"timestamp": 4, "input_length": 9, "output_length": 1, "hash_ids": [1, -2]})", f)
          .find("hash_ids"),
      std::string::npos);
  EXPECT_EQ(bad_json(R"({"timestamp": 4, "input_length": 9,)", f), "not valid JSON");
  EXPECT_EQ(bad_json("[1, 2]", f), "not a JSON object");
}

TEST(TraceLine, JsonlEveryField) {
  const TraceEntry e =
      good_json(R"({"t_s": 0.25, "input_tokens": 300, "output_tokens": 40, "hash_ids": [5, 6]})",
                TraceFormat::jsonl);
  EXPECT_EQ(e.t_ns, kSec / 4);
  EXPECT_EQ(e.input_tokens, 300);
  EXPECT_EQ(e.output_tokens, 40);
  EXPECT_EQ(e.hash_ids, (std::vector<uint64_t>{5, 6}));
  const TraceEntry z =
      good_json(R"({"t_s": 12, "input_tokens": 1, "output_tokens": 0})", TraceFormat::jsonl);
  EXPECT_EQ(z.t_ns, 12 * kSec);
  EXPECT_EQ(z.output_tokens, 0);  // kept as recorded; the prompt source asks for 1
  EXPECT_NE(
      bad_json(R"({"input_tokens": 1, "output_tokens": 2})", TraceFormat::jsonl).find("no \"t_s\""),
      std::string::npos);
  // Mooncake's keys are not jsonl's.
  EXPECT_NE(
      bad_json(R"({"timestamp": 0, "input_length": 1, "output_length": 2})", TraceFormat::jsonl)
          .find("no \"t_s\""),
      std::string::npos);
  EXPECT_NE(
      bad_json(R"({"t_s": 1, "input_tokens": "many", "output_tokens": 2})", TraceFormat::jsonl)
          .find("input_tokens"),
      std::string::npos);
}

TEST(TraceLine, BurstGptHeaderAndRows) {
  std::string why;
  const auto cols =
      parse_trace_csv_header("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type",
                             TraceFormat::burstgpt, why);
  ASSERT_TRUE(cols) << why;
  EXPECT_EQ(cols->timestamp, 0);
  EXPECT_EQ(cols->input, 2);
  EXPECT_EQ(cols->output, 3);
  TraceLine l =
      parse_trace_csv_line("5,ChatGPT,472,18,490,Conversation log", *cols, TraceFormat::burstgpt);
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.entry.t_ns, 5 * kSec);
  EXPECT_EQ(l.entry.input_tokens, 472);
  EXPECT_EQ(l.entry.output_tokens, 18);
  EXPECT_TRUE(l.entry.hash_ids.empty());
  // A failed request: 0 response tokens; fractional seconds; a quoted field with a comma.
  l = parse_trace_csv_line("45.5,\"GPT-4, 0613\",1087,0,1087,API log\r", *cols,
                           TraceFormat::burstgpt);
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.entry.t_ns, 45 * kSec + kSec / 2);
  EXPECT_EQ(l.entry.input_tokens, 1087);
  EXPECT_EQ(l.entry.output_tokens, 0);
  // Newer releases add columns: found by name.
  const auto newer = parse_trace_csv_header(
      "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log "
      "Type",
      TraceFormat::burstgpt, why);
  ASSERT_TRUE(newer) << why;
  l = parse_trace_csv_line("7,s-9,1.2,ChatGPT,64,32,96,Conversation log", *newer,
                           TraceFormat::burstgpt);
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.entry.input_tokens, 64);
  EXPECT_EQ(l.entry.output_tokens, 32);
}

TEST(TraceLine, BurstGptBadLines) {
  std::string why;
  const auto cols =
      parse_trace_csv_header("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type",
                             TraceFormat::burstgpt, why);
  ASSERT_TRUE(cols);
  const auto err = [&](std::string_view line) {
    const TraceLine l = parse_trace_csv_line(line, *cols, TraceFormat::burstgpt);
    EXPECT_FALSE(l.ok()) << line;
    return l.error;
  };
  EXPECT_EQ(err(",ChatGPT,472,18,490,Conversation log"), "no timestamp");
  EXPECT_NE(err("noon,ChatGPT,472,18,490,Conversation log").find("Timestamp 'noon'"),
            std::string::npos);
  EXPECT_NE(err("5,ChatGPT,lots,18,490,Conversation log").find("Request tokens"),
            std::string::npos);
  EXPECT_NE(err("5,ChatGPT,472,-1,490,Conversation log").find("Response tokens"),
            std::string::npos);
  EXPECT_NE(err("5,ChatGPT,472").find("3 fields, the header has 6"), std::string::npos);
  EXPECT_FALSE(parse_trace_csv_header("Time,Model,Request tokens,Response tokens",
                                      TraceFormat::burstgpt, why));
  EXPECT_NE(why.find("no \"Timestamp\" column"), std::string::npos);
}

TEST(TraceLine, AzureRows) {
  std::string why;
  const auto cols = parse_trace_csv_header("\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens",
                                           TraceFormat::azure, why);
  ASSERT_TRUE(cols) << why;
  const TraceLine a =
      parse_trace_csv_line("2023-11-16 18:15:46.6805900,374,44", *cols, TraceFormat::azure);
  const TraceLine b =
      parse_trace_csv_line("2023-11-16 18:15:50.9951690,396,109", *cols, TraceFormat::azure);
  ASSERT_TRUE(a.ok()) << a.error;
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_EQ(a.entry.input_tokens, 374);
  EXPECT_EQ(a.entry.output_tokens, 44);
  EXPECT_EQ(b.entry.t_ns - a.entry.t_ns, 4'314'579'000);  // 100 ns ticks kept
  const TraceLine bad = parse_trace_csv_line("16/11/2023 18:15,374,44", *cols, TraceFormat::azure);
  EXPECT_NE(bad.error.find("TIMESTAMP '16/11/2023 18:15' is not a date-time"), std::string::npos);
  EXPECT_FALSE(parse_trace_csv_header("TIMESTAMP,ContextTokens", TraceFormat::azure, why));
  EXPECT_NE(why.find("GeneratedTokens"), std::string::npos);
}

TEST(TraceLine, DateTimes) {
  EXPECT_EQ(parse_datetime_ns("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(parse_datetime_ns("1970-01-02T00:00:01.5Z"), 86401 * kSec + kSec / 2);
  EXPECT_EQ(parse_datetime_ns("2024-05-10 00:00:00+00:00"), 1715299200 * kSec);
  EXPECT_EQ(parse_datetime_ns("2024-05-10 02:00:00+02:00"), 1715299200 * kSec);
  EXPECT_EQ(parse_datetime_ns("2024-02-29 00:00:00"), 1709164800 * kSec);  // leap day
  EXPECT_EQ(parse_datetime_ns("2023-11-16 18:15:46.12345678912"),
            parse_datetime_ns("2023-11-16 18:15:46.123456789"));
  for (const char* bad : {"", "2023-11-16", "2023-13-01 00:00:00", "2023-11-16 25:00:00",
                          "2023-11-16 18:15:46.", "2023-11-16 18:15:46 UTC", "18:15:46"})
    EXPECT_FALSE(parse_datetime_ns(bad)) << bad;
}

TEST(TraceFormat, NamesAndUnknown) {
  for (const char* name : {"mooncake", "burstgpt", "azure", "jsonl"})
    EXPECT_EQ(to_string(parse_trace_format(name)), name);
  try {
    parse_trace_format("sharegpt");
    FAIL() << "accepted an unknown format";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_STREQ(e.what(),
                 "--trace-format 'sharegpt': unknown format; expected mooncake, burstgpt, azure "
                 "or jsonl");
  }
}

}  // namespace
}  // namespace sb::workload
