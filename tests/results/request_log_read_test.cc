// Reading a requests.jsonl back in blocks (results/request_log_read.h): lines that straddle
// block boundaries, a line longer than a block, a bad line in the middle and one cut at the end.
#include "results/request_log_read.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "results/request_jsonl.h"

namespace sb::results {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() /
         (name + "_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
}

TEST(RequestLogRead, BlocksLongLinesBadLinesAndACutEnd) {
  const fs::path path = temp_file("sb_log_read.jsonl");
  constexpr uint64_t kRecords = 4000;  // ~3 MB: lines cross the 1 MiB block boundaries
  std::string text;
  for (uint64_t k = 0; k < kRecords; ++k) {
    metrics::RequestRecord r;
    r.id = kRecords - k;  // written in reverse: read back sorted by id
    r.input_tokens = static_cast<int64_t>(k);
    r.t_send_ns = static_cast<int64_t>(k) * 1000;
    if (k == 1234) r.output_text = std::string(1'500'000, 'x');  // longer than a block
    append_request_jsonl(text, r);
    if (k == 2000) text += "{\"id\":\"not a number\"}\n\n   \n";  // a bad line, blank lines
  }
  text += "{\"id\":99999,\"class\":\"cut";  // the last line, cut by a kill: no newline
  std::ofstream(path, std::ios::binary) << text;

  const RequestLogContents c = read_request_log(path.string());
  fs::remove(path);
  ASSERT_EQ(c.records.size(), kRecords);
  for (uint64_t i = 0; i < kRecords; ++i) {
    ASSERT_EQ(c.records[i].id, i + 1);
    ASSERT_EQ(c.records[i].input_tokens, static_cast<int64_t>(kRecords - 1 - i));
  }
  EXPECT_EQ(c.records[kRecords - 1 - 1234].output_text.size(), 1'500'000u);
  EXPECT_EQ(c.skipped_lines, 2);
  EXPECT_TRUE(c.last_line_cut);
  EXPECT_NE(c.first_error.find("line 2002: "), std::string::npos) << c.first_error;
}

TEST(RequestLogRead, CutLineIsNamedWhenItIsTheFirstError) {
  const fs::path path = temp_file("sb_log_cut.jsonl");
  std::string text;
  metrics::RequestRecord r;
  r.id = 1;
  append_request_jsonl(text, r);
  text += "{\"id\":2,\"cla";
  std::ofstream(path, std::ios::binary) << text;
  const RequestLogContents c = read_request_log(path.string());
  fs::remove(path);
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_TRUE(c.last_line_cut);
  EXPECT_NE(c.first_error.find("line 2 (cut, no newline): "), std::string::npos) << c.first_error;
}

// Ids in a scrambled order (long permutation cycles) and repeated: sorted by id, ties in file
// order, every record whole.
TEST(RequestLogRead, ScrambledAndRepeatedIdsSortStably) {
  const fs::path path = temp_file("sb_log_sort.jsonl");
  constexpr uint64_t kIds = 997;  // prime: k * 389 mod 997 visits every id once
  std::string text;
  for (uint64_t k = 0; k < 2 * kIds; ++k) {
    metrics::RequestRecord r;
    r.id = (k % kIds) * 389 % kIds;
    r.input_tokens = static_cast<int64_t>(k);  // its line: tells the tie order
    r.request_class = "class-" + std::to_string(r.id);
    append_request_jsonl(text, r);
  }
  std::ofstream(path, std::ios::binary) << text;
  const RequestLogContents c = read_request_log(path.string());
  fs::remove(path);
  ASSERT_EQ(c.records.size(), 2 * kIds);
  for (size_t i = 0; i < c.records.size(); ++i) {
    const auto& r = c.records[i];
    ASSERT_EQ(r.id, i / 2);
    EXPECT_EQ(r.request_class, "class-" + std::to_string(r.id));
    if (i % 2 == 1) {
      EXPECT_EQ(r.input_tokens, c.records[i - 1].input_tokens + static_cast<int64_t>(kIds));
    }
  }
}

TEST(RequestLogRead, MissingFileIsAnError) {
  EXPECT_THROW(read_request_log(temp_file("sb_no_such").string()), Error);
}

}  // namespace
}  // namespace sb::results
