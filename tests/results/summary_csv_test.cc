#include "results/summary_csv.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "../report/fixture.h"

namespace sb::results {
namespace {

namespace testing = sb::report::testing;  // the report tests' fixture run

std::vector<std::string> split(std::string line) {
  if (!line.empty() && line.back() == '\n') line.pop_back();
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

TEST(SummaryCsv, HeaderAndRowAgree) {
  const auto info = testing::fixture_info();
  const auto s = metrics::summarize_run(testing::fixture_records(), info);
  const auto header = split(summary_csv_header());
  const auto row = split(summary_csv_row(s));
  ASSERT_EQ(header.size(), row.size());
  EXPECT_EQ(header.size(), 8u + 16u + 4u + 5u);
  auto col = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return row[i];
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  EXPECT_EQ(col("mode"), "closed");
  EXPECT_EQ(col("concurrency"), "8");
  EXPECT_EQ(col("target_rate"), "");
  EXPECT_EQ(col("requests"), "3");
  EXPECT_EQ(col("requests_per_s"), "2");       // 2 ok / 1 s
  EXPECT_EQ(col("output_tokens_per_s"), "8");  // (5 + 3) / 1 s
  EXPECT_EQ(col("ttft_mean_ms"), "75");        // (50 + 100) / 2
  EXPECT_EQ(col("e2e_p50_ms"), "275");         // [250, 300] -> midpoint
  EXPECT_EQ(col("itl_p99_ms"), "100");
  EXPECT_DOUBLE_EQ(std::stod(col("error_rate")), 1.0 / 3);
  EXPECT_DOUBLE_EQ(std::stod(col("goodput_fraction")), 2.0 / 3);
  EXPECT_DOUBLE_EQ(std::stod(col("goodput_requests_per_s")), 2.0);
  EXPECT_EQ(col("abandonment_rate"), "");  // no --abandon-after: users never gave up
  // No request reasoned: TTFO is TTFT, and the reasoning cells are empty.
  EXPECT_EQ(col("ttfo_p50_ms"), col("ttft_p50_ms"));
  EXPECT_EQ(col("reasoning_tokens_mean"), "");
  EXPECT_EQ(col("reasoning_ms_p50"), "");
}

TEST(SummaryCsv, ReasoningColumnsWhenRequestsReasoned) {
  auto records = testing::fixture_records();
  int reasoned = 0;
  for (auto& r : records) {
    if (!r.ok() || r.warmup) continue;
    // 12 reasoning tokens, the first answer token 40 ms after the first reasoning token.
    r.reasoning_tokens = 12;
    r.t_first_content_ns = r.t_first_ns + 40'000'000;
    ++reasoned;
  }
  ASSERT_EQ(reasoned, 2);
  const auto s = metrics::summarize_run(records, testing::fixture_info());
  const auto header = split(summary_csv_header());
  const auto row = split(summary_csv_row(s));
  ASSERT_EQ(header.size(), row.size());
  auto col = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return std::stod(row[i]);
    ADD_FAILURE() << "no column " << name;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(col("reasoning_tokens_mean"), 12);
  EXPECT_DOUBLE_EQ(col("reasoning_ms_p50"), 40);
  EXPECT_DOUBLE_EQ(col("ttfo_p50_ms"), col("ttft_p50_ms") + 40);
}

TEST(SummaryCsv, AbandonmentRateWithAbandonAfter) {
  metrics::RunInfo info = testing::fixture_info();
  info.abandon_after_s = 2.0;
  auto records = testing::fixture_records();
  records.back().error_class = ErrorClass::abandoned;
  const auto s = metrics::summarize_run(records, info);
  ASSERT_TRUE(s.abandonment);
  const auto header = split(summary_csv_header());
  const auto row = split(summary_csv_row(s));
  ASSERT_EQ(header.size(), row.size());
  ASSERT_EQ(header[header.size() - 2], "abandonment_rate");
  EXPECT_DOUBLE_EQ(std::stod(row[row.size() - 2]), 1.0 / 3);
}

TEST(SummaryCsv, ItemsPerSecondOnlyWhenRequestsCarriedItems) {
  auto records = testing::fixture_records();
  const auto header = split(summary_csv_header());
  ASSERT_EQ(header.back(), "items_per_s");
  EXPECT_EQ(split(summary_csv_row(metrics::summarize_run(records, testing::fixture_info()))).back(),
            "");  // a generative run
  for (auto& r : records) r.items = 4;
  const auto s = metrics::summarize_run(records, testing::fixture_info());
  ASSERT_TRUE(s.throughput.items_per_s);
  // Four items per ok request: four times the requests per second.
  EXPECT_DOUBLE_EQ(*s.throughput.items_per_s, 4 * *s.throughput.requests_per_s);
  EXPECT_DOUBLE_EQ(std::stod(split(summary_csv_row(s)).back()), *s.throughput.items_per_s);
}

TEST(SummaryCsv, OpenLoopAndEmpty) {
  metrics::RunInfo info = testing::fixture_info();
  info.load_mode = "open";
  info.target_rate = 4;
  info.slo = {};
  const auto header = split(summary_csv_header());
  const auto row = split(summary_csv_row(metrics::summarize_run({}, info)));
  ASSERT_EQ(header.size(), row.size());
  EXPECT_EQ(row[0], "open");
  EXPECT_EQ(row[1], "");   // concurrency
  EXPECT_EQ(row[2], "4");  // target_rate
  EXPECT_EQ(row[3], "0");
  for (size_t i = 6; i < row.size(); ++i) EXPECT_EQ(row[i], "") << header[i];
}

}  // namespace
}  // namespace sb::results
