// providers.yaml's hardware, precision, cost_per_hour, instance and idle_power_w
// (plan/providers.h), and how a run's economics are resolved (plan/run_economics.h).
#include <gtest/gtest.h>

#include "common/error.h"
#include "plan/run_economics.h"

namespace sb::plan {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_providers_text(yaml, "p.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(EconomicsProviders, FieldsParse) {
  const auto ps = parse_providers_text(R"(providers:
  - {id: a, base_url: "http://127.0.0.1:8000", hardware: 2x H100, precision: awq-4bit,
     cost_per_hour: 24.58, idle_power_w: 70}
  - {id: b, sim: tgi, instance: aws:g5.xlarge}
)",
                                       "p.yaml");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].economics.hardware, "2x H100");
  EXPECT_EQ(ps[0].economics.precision, "awq-4bit");
  EXPECT_EQ(ps[0].economics.cost_per_hour_usd, 24.58);
  EXPECT_EQ(ps[0].economics.idle_power_w, 70);
  EXPECT_EQ(ps[1].economics.instance, "aws:g5.xlarge");
  EXPECT_FALSE(ps[1].economics.cost_per_hour_usd);
}

TEST(EconomicsProviders, BadValuesNameTheField) {
  const std::string unknown = error_of("[{id: a, sim: tgi, instance: aws:z1}]");
  EXPECT_NE(unknown.find("providers[0] (a).instance: 'aws:z1' is not in the price table (known: "
                         "aws:g5.xlarge"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("give cost_per_hour"), std::string::npos);
  const std::string negative = error_of("[{id: a, sim: tgi, cost_per_hour: -1}]");
  EXPECT_NE(negative.find("providers[0] (a).cost_per_hour"), std::string::npos) << negative;
  EXPECT_NE(error_of("[{id: a, sim: tgi, idle_power_w: x}]").find("is not a number"),
            std::string::npos);
}

TEST(EconomicsProviders, GpusFromTheHardwareLabel) {
  EXPECT_EQ(gpus_of_label("2x H100"), 2);
  EXPECT_EQ(gpus_of_label("8X A100"), 8);
  EXPECT_EQ(gpus_of_label("4 x L4"), 4);
  EXPECT_FALSE(gpus_of_label("H100"));
  EXPECT_FALSE(gpus_of_label("Xeon 8380"));
  EXPECT_FALSE(gpus_of_label("8380 cores"));
  EXPECT_FALSE(gpus_of_label("0x A10G"));
  EXPECT_FALSE(gpus_of_label(""));
}

TEST(EconomicsProviders, ProviderFieldsOverrideTheCommands) {
  Provider p;
  p.economics.cost_per_hour_usd = 2.0;
  p.economics.hardware = "1x L4";
  RunSpec spec;
  spec.economics.cost_per_hour_usd = 1.0;
  spec.economics.instance = "aws:g5.xlarge";
  spec.economics.precision = "fp16";
  EXPECT_EQ(economics_of(spec).cost_per_hour_usd, 1.0);
  spec.provider = &p;
  const EconomicsConfig ec = economics_of(spec);
  EXPECT_EQ(ec.cost_per_hour_usd, 2.0);
  EXPECT_EQ(ec.instance, "aws:g5.xlarge");  // the command's, the provider has none
  EXPECT_EQ(ec.hardware, "1x L4");
  EXPECT_EQ(ec.precision, "fp16");
  // A provider's instance is its price: the command's cost_per_hour does not override it.
  Provider listed;
  listed.economics.instance = "aws:g5.xlarge";
  spec.provider = &listed;
  spec.economics.instance.clear();
  EXPECT_FALSE(economics_of(spec).cost_per_hour_usd);
  EXPECT_EQ(economics_of(spec).instance, "aws:g5.xlarge");
}

}  // namespace
}  // namespace sb::plan
