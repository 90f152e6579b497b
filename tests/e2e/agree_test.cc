// `servebench agree` as users run it, on simulator runs: the same seed gives 100% agreement;
// another simulator text seed (--sim-seed: another "model" on the same prompts) gives less,
// and --fail-below exits 6; runs of different prompts (--seed) and runs without
// --save-outputs are refused with a message naming the fix.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace {

namespace fs = std::filesystem;
using sb::testing::run_servebench;

class AgreeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("servebench-agree-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string common =
        "prof --sim instant --api tgi -n 24 --concurrency 4 --input-length 32 "
        "--output-length 24 -q --no-progress ";
    for (const auto& [name, extra] :
         {std::pair<std::string, std::string>{"a", "--seed 1 --save-outputs"},
          {"b", "--seed 1 --save-outputs"},
          {"c", "--seed 1 --sim-seed 7 --save-outputs"},
          {"d", "--seed 2 --save-outputs"},
          {"e", "--seed 1"}}) {
      const auto r = run_servebench(common + extra + " -o " + (dir_ / name).string());
      ASSERT_EQ(r.code, 0) << r.out;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string run(const std::string& n) { return (dir_ / n).string(); }
  static fs::path dir_;
};
fs::path AgreeTest::dir_;

// `agree --format json A B`, the document read from its -o file: stderr may carry warnings
// (a run marked client_limited under the sanitizers' slow client) that are not part of it.
nlohmann::json agree_json(const std::string& a, const std::string& b) {
  const fs::path out = fs::path(a).parent_path() / "agree.json";
  const auto j = run_servebench("agree --format json " + a + " " + b + " -o " + out.string());
  EXPECT_EQ(j.code, 0) << j.out;
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

TEST_F(AgreeTest, SameSeedAgreesFully) {
  const auto r = run_servebench("agree " + run("a") + " " + run("b") +
                                " --fail-below exact_match:1 --fail-below bleu:100");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("identical        100.0%"), std::string::npos) << r.out;
  const auto doc = agree_json(run("a"), run("b"));
  EXPECT_EQ(doc["pairs"], 24);
  EXPECT_DOUBLE_EQ(doc["identical"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(doc["exact_match"].get<double>(), 1.0);
  EXPECT_NEAR(doc["bleu"].get<double>(), 100.0, 1e-9);
  EXPECT_NEAR(doc["chrf"].get<double>(), 100.0, 1e-9);
  EXPECT_EQ(doc["output_tokens"]["pairs_differing"], 0);
  EXPECT_TRUE(doc["most_divergent"].empty());
}

TEST_F(AgreeTest, AnotherModelAgreesLessAndFailsTheGate) {
  const auto doc = agree_json(run("a"), run("c"));
  EXPECT_EQ(doc["pairs"], 24);
  EXPECT_LT(doc["exact_match"].get<double>(), 0.95);
  EXPECT_LT(doc["bleu"].get<double>(), 30.0);
  EXPECT_FALSE(doc["most_divergent"].empty());
  const auto gated = run_servebench("agree " + run("a") + " " + run("c") +
                                    " --fail-below exact_match:0.95 --fail-below bleu:30");
  EXPECT_EQ(gated.code, 6) << gated.out;
  EXPECT_NE(gated.out.find("agreement below --fail-below: exact_match"), std::string::npos)
      << gated.out;
  EXPECT_NE(gated.out.find("most divergent pairs"), std::string::npos) << gated.out;
}

TEST_F(AgreeTest, RefusesMismatchedRunsAndMissingOutputs) {
  const auto d = run_servebench("agree " + run("a") + " " + run("d"));
  EXPECT_EQ(d.code, 2) << d.out;
  EXPECT_NE(d.out.find("not made with the same prompts"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("load.seed"), std::string::npos) << d.out;
  const auto e = run_servebench("agree " + run("a") + " " + run("e"));
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("without --save-outputs"), std::string::npos) << e.out;
  const auto bad = run_servebench("agree " + run("a") + " " + run("b") + " --fail-below bleu");
  EXPECT_EQ(bad.code, 2) << bad.out;
  // Outputs reach requests.jsonl only when asked.
  std::ifstream with(fs::path(run("a")) / "requests.jsonl"),
      without(fs::path(run("e")) / "requests.jsonl");
  std::string line;
  std::getline(with, line);
  EXPECT_NE(line.find("\"output\":"), std::string::npos);
  std::getline(without, line);
  EXPECT_EQ(line.find("\"output\":"), std::string::npos);
}

}  // namespace
