// The simulator's power model through predict (issue 18's must-show): J per output token at
// batch 1 is higher than at the knee of the saturation search, because the GPU draws near
// its busy power either way while batch 1 makes a fraction of the tokens.
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../support/temp_dir.h"
#include "../support/text_file.h"

namespace sb {
namespace {

using nlohmann::json;

std::filesystem::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("energy-predict-" + name, /*create=*/false);
}

TEST(EnergyPredict, JoulesPerTokenAtBatchOneExceedTheKnees) {
  const auto dir = temp_dir("knee");
  const auto r = testing::run_servebench(
      fmt::format("predict sweep --sim tgi --api tgi --until-saturation --concurrency 1 "
                  "--requests-per-level 20 --output-length 64 --cost-per-hour 1.006 -q -o {}",
                  dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const json index = json::parse(testing::slurp(dir / "index.json"));
  ASSERT_EQ(index["searches"].size(), 1u);
  ASSERT_TRUE(index["searches"][0]["knee"].is_number()) << index["searches"].dump();
  const double knee = index["searches"][0]["knee"];
  json at1, at_knee;
  for (const json& run : index["runs"]) {
    if (run["load_level"] == 1.0) at1 = run;
    if (run["load_level"] == knee) at_knee = run;
  }
  ASSERT_TRUE(at1.is_object() && at_knee.is_object());
  const double j1 = at1["j_per_output_token"], jk = at_knee["j_per_output_token"];
  EXPECT_GT(j1, 2 * jk) << "batch 1: " << j1 << " J/token, knee c" << knee << ": " << jk;
  // The same order in dollars: the price per hour is fixed, the tokens are not.
  EXPECT_GT(at1["usd_per_million_output_tokens"].get<double>(),
            at_knee["usd_per_million_output_tokens"].get<double>());
  // The run's own summary: the simulator's model, its idle figure, model time.
  const json s =
      json::parse(testing::slurp(dir / at1["folder"].get<std::string>() / "summary.json"));
  const json& e = s["energy"];
  ASSERT_TRUE(e["available"].get<bool>()) << e.dump();
  EXPECT_EQ(e["source"], "simulator power model (DCGM_FI_DEV_POWER_USAGE of predicted /metrics)");
  EXPECT_EQ(e["idle_source"], "simulator");
  EXPECT_EQ(e["idle_power_w"], 60.0);  // the tgi preset's A10G: 60..300 W
  EXPECT_LE(e["mean_power_w"].get<double>(), 300.0);
  EXPECT_GE(e["mean_power_w"].get<double>(), 60.0);
  EXPECT_LT(e["above_idle"]["energy_j"].get<double>(), e["energy_j"].get<double>());
  EXPECT_EQ(s["config"]["hardware"], "1x A10G");
  EXPECT_EQ(s["config"]["precision"], "fp16");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb
