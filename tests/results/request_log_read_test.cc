// Reading a requests.jsonl back in blocks (results/request_log_read.h): lines that straddle
// block boundaries, a line longer than a block, a bad line in the middle and one cut at the end.
#include "results/request_log_read.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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
  EXPECT_THROW(scan_request_log(
                   temp_file("sb_no_such").string(), [](const auto&) {}, [] {}),
               Error);
}

// A log written in completion order: each id within `spread` places of its own, some ids
// repeated; one bad line and a cut end.
std::string completion_order_log(uint64_t records, uint64_t spread) {
  std::string text;
  for (uint64_t k = 0; k < records; ++k) {
    metrics::RequestRecord r;
    // Blocks of `spread` written backwards: id k lands up to spread - 1 places from k.
    r.id = (k / spread) * spread + (spread - 1 - k % spread);
    if (k % 50 == 7) r.id = k / spread * spread;  // a repeated id (ties: file order)
    r.input_tokens = static_cast<int64_t>(k);     // its line
    r.request_class = k % 3 == 0 ? "chat" : "long";
    append_request_jsonl(text, r);
    if (k == 100) text += "{\"id\":\"bad\"}\n";
  }
  text += "{\"id\":1,\"cla";
  return text;
}

// What the scan delivered: (id, line) in order, and how often it restarted.
struct Scanned {
  std::vector<std::pair<uint64_t, int64_t>> seen;
  int restarts = 0;
  RequestLogScan scan;
};

Scanned scan_file(const fs::path& path, size_t window) {
  Scanned s;
  s.scan = scan_request_log(
      path.string(),
      [&](const metrics::RequestRecord& r) { s.seen.emplace_back(r.id, r.input_tokens); },
      [&] {
        ++s.restarts;
        s.seen.clear();
      },
      window);
  return s;
}

// The scan delivers exactly read_request_log's records, in its order, holding `window`.
TEST(RequestLogScan, DeliversTheSortedOrderWithinTheWindowInOnePass) {
  const fs::path path = temp_file("sb_log_scan.jsonl");
  std::ofstream(path, std::ios::binary) << completion_order_log(3000, 16);
  const RequestLogContents whole = read_request_log(path.string());
  const Scanned s = scan_file(path, 16);
  fs::remove(path);
  EXPECT_EQ(s.restarts, 0);
  EXPECT_FALSE(s.scan.reread);
  ASSERT_EQ(s.seen.size(), whole.records.size());
  for (size_t i = 0; i < s.seen.size(); ++i) {
    ASSERT_EQ(s.seen[i].first, whole.records[i].id) << i;
    ASSERT_EQ(s.seen[i].second, whole.records[i].input_tokens) << i;
  }
  EXPECT_EQ(s.scan.records, static_cast<int64_t>(whole.records.size()));
  EXPECT_EQ(s.scan.skipped_lines, whole.skipped_lines);
  EXPECT_EQ(s.scan.skipped_lines, 2);
  EXPECT_EQ(s.scan.first_error, whole.first_error);
  EXPECT_TRUE(s.scan.last_line_cut);
}

// A record further from its place than the window: the caller is told to drop what it
// gathered, and gets every record again, sorted, from a whole read.
TEST(RequestLogScan, TooFarOutOfOrderRestartsFromAWholeRead) {
  const fs::path path = temp_file("sb_log_scan_far.jsonl");
  std::ofstream(path, std::ios::binary) << completion_order_log(3000, 64);
  const RequestLogContents whole = read_request_log(path.string());
  const Scanned s = scan_file(path, 8);
  fs::remove(path);
  EXPECT_EQ(s.restarts, 1);
  EXPECT_TRUE(s.scan.reread);
  ASSERT_EQ(s.seen.size(), whole.records.size());
  for (size_t i = 0; i < s.seen.size(); ++i) ASSERT_EQ(s.seen[i].first, whole.records[i].id);
  EXPECT_EQ(s.scan.records, static_cast<int64_t>(whole.records.size()));
  EXPECT_EQ(s.scan.skipped_lines, 2);
  EXPECT_TRUE(s.scan.last_line_cut);
}

}  // namespace
}  // namespace sb::results
