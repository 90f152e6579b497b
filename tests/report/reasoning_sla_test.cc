// --sla rules on the reasoning time (reasoning_ms = TTFO - TTFT, summary.json
// metrics.reasoning_ms): parsed like every latency rule and checked against the run's
// distribution; a run in which nothing reasoned has no such number and fails the rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/run_analysis.h"

namespace sb::report {
namespace {

TEST(ReasoningSla, ParsedAndCheckedAgainstTheDistribution) {
  const SlaRule rule = parse_sla("p99_reasoning_ms:500");
  EXPECT_EQ(rule.metric, "reasoning_ms");
  EXPECT_EQ(rule.stat, "p99");
  EXPECT_EQ(parse_sla("p50_reasoning:100").metric, "reasoning_ms");
  const auto summary = nlohmann::json::parse(
      R"({"metrics": {"reasoning_ms": {"count": 4, "p99": 480.0}}, "run": {"requests":
         {"total": 4, "ok": 4, "failed": 0}}})");
  const auto results = check_sla(summary, {rule});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].value, 480.0);
  EXPECT_TRUE(results[0].pass);
  const auto none = check_sla(nlohmann::json::parse(R"({"metrics": {}})"), {rule});
  EXPECT_FALSE(none[0].value);
  EXPECT_FALSE(none[0].pass);
}

}  // namespace
}  // namespace sb::report
