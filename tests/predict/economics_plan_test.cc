// Cost across providers (issue 18's must-show): a plan where the cheapest provider meeting the
// SLOs is not the fastest, in index.json ("cheapest", "at_slo"), on the terminal and in the
// report; and examples/hardware-comparison.yaml predicted whole, with energy and cost in
// every run and the report's hardware table and Pareto charts.
#include <algorithm>
#include <filesystem>
#include <fstream>

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
  return ::sb::testing::fresh_temp_dir("economics-" + name);
}

constexpr const char* kPlan = R"(name: cheapest
providers:
  - {id: fast, sim: {engine: vllm, gpu: H100, model: llama-3.1-8b, dtype: fp16}, instance: aws:p5.48xlarge/gpu}
  - {id: cheap, sim: {engine: vllm, gpu: L4, model: llama-3.1-8b, dtype: int4}, cost_per_hour: 0.8048}
defaults: {api: openai-chat, input_length: 256, output_length: 64, goodput: [ttft:10000, tpot:200]}
stages:
  - {name: sweep, kind: sweep, concurrency: [1, 8, 32], requests_per_level: 4}
)";

TEST(EconomicsPlan, CheapestMeetingTheSloIsNotTheFastest) {
  const auto dir = temp_dir("plan");
  std::ofstream(dir / "plan.yaml") << kPlan;
  const auto r = testing::run_servebench(
      fmt::format("predict run {} -o {}/out", (dir / "plan.yaml").string(), dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const json index = json::parse(testing::slurp(dir / "out/index.json"));
  // The fastest run of the plan is the H100's.
  const auto& runs = index["runs"];
  const auto fastest = std::max_element(runs.begin(), runs.end(), [](const json& a, const json& b) {
    return a["output_tokens_per_s"].get<double>() < b["output_tokens_per_s"].get<double>();
  });
  EXPECT_EQ((*fastest)["provider"], "fast");
  // Per provider its highest load meeting the SLOs, and the cheapest of those.
  ASSERT_EQ(index["at_slo"].size(), 2u);
  for (const json& a : index["at_slo"]) EXPECT_EQ(a["load_level"], 32.0) << a.dump();
  ASSERT_EQ(index["cheapest"].size(), 1u);
  const json& c = index["cheapest"][0];
  EXPECT_EQ(c["provider"], "cheap");
  EXPECT_EQ(c["next_provider"], "fast");
  EXPECT_GT(c["margin_pct"].get<double>(), 0);
  // $/M tokens = price x hours / tokens, from the run's own numbers.
  for (const json& run : runs) {
    const json s = json::parse(
        testing::slurp(dir / "out" / run["folder"].get<std::string>() / "summary.json"));
    const double hours = s["throughput"]["window_s"].get<double>() / 3600;
    const double tokens = s["throughput"]["output_tokens_per_s"].get<double>() *
                          s["throughput"]["window_s"].get<double>();
    const double price = run["provider"] == "cheap" ? 0.8048 : 98.32 / 8;
    EXPECT_NEAR(run["usd_per_million_output_tokens"].get<double>(), price * hours / tokens * 1e6,
                1e-6 * price * hours / tokens * 1e6);
    EXPECT_EQ(s["cost"]["usd_per_hour"].get<double>(), price);
  }
  EXPECT_NE(r.out.find("in256/out64: cheapest meeting the SLOs is cheap at concurrency 32"),
            std::string::npos)
      << r.out;
  // The report says the same.
  const auto rep =
      testing::run_servebench(fmt::format("report {0}/out -o {0}/report.html -q", dir.string()));
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = testing::slurp(dir / "report.html");
  EXPECT_NE(html.find("<section id=\"economics\">"), std::string::npos);
  EXPECT_NE(html.find("data-cheapest=\"cheap\""), std::string::npos);
  EXPECT_NE(html.find("% dearer"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(EconomicsPlan, HardwareComparisonExamplePredictsEnergyAndCostEverywhere) {
  const auto dir = temp_dir("example");
  const auto r = testing::run_servebench(
      fmt::format("predict run {}/examples/hardware-comparison.yaml -o {}/out -q",
                  SERVEBENCH_SOURCE_DIR, dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const json index = json::parse(testing::slurp(dir / "out/index.json"));
  ASSERT_EQ(index["runs"].size(), 8u * 4);  // A10G, L4, A100, H100 x fp16, int4 x 4 levels
  for (const json& run : index["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    EXPECT_TRUE(run["j_per_output_token"].is_number()) << run.dump();
    EXPECT_TRUE(run["usd_per_million_output_tokens"].is_number()) << run.dump();
    EXPECT_TRUE(run["precision"] == "fp16" || run["precision"] == "int4") << run.dump();
  }
  EXPECT_EQ(index["runs"][0]["hardware"], "1x A10G");
  const auto rep =
      testing::run_servebench(fmt::format("report {0}/out -o {0}/report.html -q", dir.string()));
  ASSERT_EQ(rep.code, 0) << rep.out;
  const std::string html = testing::slurp(dir / "report.html");
  for (const char* id :
       {"data-chart=\"pareto-in512-out128\"", "data-chart=\"pareto-energy-in512-out128\"",
        "data-chart=\"pareto-cost-in512-out128\"", "data-table=\"hardware\"",
        "data-label=\"h100-int4 c64\"", "data-series=\"Pareto frontier\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  const size_t table = html.find("data-table=\"hardware\"");
  const std::string rows = html.substr(table, html.find("</table>", table) - table);
  size_t n = 0;
  for (size_t at = rows.find("<tr><td>"); at != std::string::npos;
       at = rows.find("<tr><td>", at + 1))
    ++n;
  EXPECT_EQ(n, 8u);  // one row per configuration at the named load
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

// The hardware table's quality column: two live simulator runs of the same prompts with
// saved outputs, the second "model" (another --sim-seed) scored against the reference's texts.
TEST(EconomicsPlan, PriceTableIsListedWithItsDateAndSource) {
  const auto r = testing::run_servebench("prof --list-instances");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("aws:g5.xlarge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.0060"), std::string::npos);
  EXPECT_NE(r.out.find("prices of 2024-12: AWS EC2 On-Demand"), std::string::npos);
  const auto bad = testing::run_servebench("prof --sim tgi --instance aws:x1 -n 1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--instance 'aws:x1': not in the price table"), std::string::npos)
      << bad.out;
}

TEST(EconomicsPlan, HardwareTableScoresOutputsAgainstTheReference) {
  const auto dir = temp_dir("agree");
  for (const char* seed : {"1", "2"}) {
    const auto r = testing::run_servebench(fmt::format(
        "prof --sim tgi --api tgi --concurrency 4 -n 40 --output-length 16 --sim-time-scale 0.05 "
        "--save-outputs --sim-seed {0} --hardware '1x A10G' --precision {1} -q --no-progress "
        "-o {2}/s{0}",
        seed, seed[0] == '1' ? "fp16" : "int8", dir.string()));
    ASSERT_EQ(r.code, 0) << r.out;
  }
  const auto md = testing::run_servebench(fmt::format(
      "report --label fp16={0}/s1 --label int8={0}/s2 --reference fp16 --format md -o - -q",
      dir.string()));
  ASSERT_EQ(md.code, 0) << md.out;
  const size_t at = md.out.find("| int8 |", md.out.find("### Hardware and precision"));
  ASSERT_NE(at, std::string::npos) << md.out;
  const std::string row = md.out.substr(at, md.out.find('\n', at) - at);
  EXPECT_NE(row.find("| int8 |"), std::string::npos);
  EXPECT_NE(row.find("BLEU "), std::string::npos) << row;
  EXPECT_NE(row.find("(n=40)"), std::string::npos) << row;
  EXPECT_NE(md.out.find("| reference |"), std::string::npos);
  EXPECT_NE(md.out.find("agreement with fp16"), std::string::npos);
  const auto bad = testing::run_servebench(fmt::format(
      "report --label fp16={0}/s1 --label int8={0}/s2 --reference fp32 -o - -q", dir.string()));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--reference 'fp32': not a backend of these runs (they are: fp16, int8)"),
            std::string::npos)
      << bad.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb
