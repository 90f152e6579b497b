#include "report/terminal_summary.h"

#include <gtest/gtest.h>

#include "fixture.h"

namespace sb::report {
namespace {

TEST(TerminalSummary, ContainsTheRowsAndSections) {
  const auto info = testing::fixture_info();
  const auto s = metrics::summarize_run(testing::fixture_records(), info);
  const std::string out = format_terminal_summary(s);
  for (const char* want : {"ttft ", "tpot", "itl", "e2e", "scheduled_e2e", "dispatch_delay", "mean",
                           "p50", "p90", "p99", "max", "Throughput:", "Goodput:", "server_error",
                           "closed loop, concurrency 8", "Late sends: 1"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  // ttft_content (TTFO) equals ttft in the fixture: the row is omitted.
  EXPECT_EQ(out.find("ttfo"), std::string::npos) << out;
  EXPECT_EQ(out.find("Reasoning:"), std::string::npos) << out;
  EXPECT_NE(out.find("75.00"), std::string::npos) << out;  // mean ttft (50 + 100) / 2
}

TEST(TerminalSummary, ShowsTtftContentWhenItDiffers) {
  auto recs = testing::fixture_records();
  for (auto& r : recs)
    if (r.t_first_content_ns != metrics::kNoTime) r.t_first_content_ns += 10'000'000;
  metrics::RunInfo info = testing::fixture_info();
  info.load_mode = "open";
  info.target_rate = 5;
  const std::string out = format_terminal_summary(metrics::summarize_run(recs, info));
  EXPECT_NE(out.find("ttfo"), std::string::npos) << out;
  EXPECT_NE(out.find("open loop, target 5.00 req/s"), std::string::npos) << out;
}

TEST(TerminalSummary, EmptyRunDoesNotCrash) {
  const std::string out =
      format_terminal_summary(metrics::summarize_run({}, testing::fixture_info()));
  EXPECT_NE(out.find("Requests: 0"), std::string::npos) << out;
}

}  // namespace
}  // namespace sb::report
