// metrics/cost.h: hours x price / tokens, the price table, the rate's precedence.
#include "metrics/cost.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::metrics {
namespace {

TEST(CostOf, HoursTimesPriceOverTokens) {
  const CostRate rate{3.6, "cost_per_hour", "", 0};
  // 100 s at $3.60/h = $0.10; 50,000 tokens -> $2 per million; 200 requests -> $0.50 per 1,000.
  const CostSummary c = cost_of(rate, 100, 50'000, 200, 80);
  EXPECT_DOUBLE_EQ(c.usd, 0.1);
  EXPECT_DOUBLE_EQ(*c.usd_per_million_output_tokens, 2.0);
  EXPECT_DOUBLE_EQ(*c.usd_per_1000_requests, 0.5);
  EXPECT_DOUBLE_EQ(*c.usd_per_1000_good_requests, 1.25);
  EXPECT_EQ(c.time_base, "wall");
}

TEST(CostOf, NoCountsNoFigures) {
  const CostSummary c = cost_of({1.0, "x", "", 0}, 10, 0, 0, std::nullopt);
  EXPECT_FALSE(c.usd_per_million_output_tokens);
  EXPECT_FALSE(c.usd_per_1000_requests);
  EXPECT_FALSE(c.usd_per_1000_good_requests);
}

TEST(CostOf, TimeScaledWindowIsModelTime) {
  const CostSummary c = cost_of({36.0, "x", "", 0}, 1, 1e6, 10, std::nullopt, 0.01);
  EXPECT_DOUBLE_EQ(c.window_s, 100);
  EXPECT_DOUBLE_EQ(c.usd, 1.0);
  EXPECT_DOUBLE_EQ(*c.usd_per_million_output_tokens, 1.0);
  EXPECT_EQ(c.time_base, "model");
}

TEST(PriceTable, EntriesAndPerGpuShares) {
  const InstancePrice* g5 = find_instance("aws:g5.xlarge");
  ASSERT_TRUE(g5);
  EXPECT_EQ(g5->gpu, "A10G");
  EXPECT_DOUBLE_EQ(g5->usd_per_hour, 1.006);
  EXPECT_EQ(find_instance("g5.xlarge"), g5);  // the bare name finds the aws: entry
  const InstancePrice* p5 = find_instance("aws:p5.48xlarge");
  const InstancePrice* p5g = find_instance("aws:p5.48xlarge/gpu");
  ASSERT_TRUE(p5 && p5g);
  EXPECT_EQ(p5->gpus, 8);
  EXPECT_DOUBLE_EQ(p5g->usd_per_hour * 8, p5->usd_per_hour);
  EXPECT_FALSE(find_instance("aws:nope"));
  for (const auto& p : instance_prices()) EXPECT_GT(p.usd_per_hour, 0) << p.name;
}

TEST(CostRate, GivenPriceOverridesTheInstance) {
  EXPECT_FALSE(cost_rate(std::nullopt, "", "--instance"));
  const auto table = cost_rate(std::nullopt, "aws:g6.xlarge", "--instance");
  ASSERT_TRUE(table);
  EXPECT_DOUBLE_EQ(table->usd_per_hour, 0.8048);
  EXPECT_EQ(table->source, "instance aws:g6.xlarge (price table 2024-12)");
  EXPECT_EQ(table->instance_gpus, 1);
  const auto given = cost_rate(0.5, "aws:g6.xlarge", "--instance");
  EXPECT_DOUBLE_EQ(given->usd_per_hour, 0.5);
  EXPECT_EQ(given->source, "cost_per_hour");
  EXPECT_EQ(given->instance, "aws:g6.xlarge");
}

TEST(CostRate, BadValuesNameTheFlag) {
  try {
    (void)cost_rate(std::nullopt, "aws:x9", "--instance");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("--instance 'aws:x9': not in the price table (known: "
                                         "aws:g5.xlarge"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)cost_rate(-1.0, "", "--cost-per-hour"), Error);
}

}  // namespace
}  // namespace sb::metrics
