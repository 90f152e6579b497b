// calibrate's bad input: runs of mixed workloads, fewer than 3 load levels, folders without
// requests.jsonl or summary.json are usage errors (exit 2) that say what calibrate needs.
#include "calibrate_support.h"

namespace sb::testing {
namespace {

// Predicted runs of the stock tgi preset under `runs`, one folder per level.
void predict_levels(const fs::path& runs, const std::string& levels, const std::string& workload) {
  const auto r = run_servebench(fmt::format(
      "predict sweep --sim tgi --api tgi --ignore-eos -n 12 {} --concurrency {} -o {} -q", workload,
      levels, runs.string()));
  ASSERT_EQ(r.code, 0) << r.out;
}

TEST(CalibrateBadInput, FewerThanThreeLevelsIsAUsageError) {
  const Scratch s("levels");
  predict_levels(s.dir() / "a", "1,4", "--input-length 100 --output-length 16");
  const auto r = run_servebench(
      fmt::format("calibrate {} -o {}", (s.dir() / "a").string(), (s.dir() / "f.yaml").string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("2 distinct load levels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at least 3"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(s.dir() / "f.yaml"));
}

TEST(CalibrateBadInput, MixedWorkloadsAreAUsageErrorNamingWhatDiffers) {
  const Scratch s("mixed");
  predict_levels(s.dir() / "a", "1,4", "--input-length 100 --output-length 16");
  predict_levels(s.dir() / "b", "8", "--input-length 400 --output-length 16");
  const auto r =
      run_servebench(fmt::format("calibrate {} {} -o {}", (s.dir() / "a").string(),
                                 (s.dir() / "b" / "c8").string(), (s.dir() / "f.yaml").string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not runs of one server and workload"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("input tokens mean/p90 100/100 vs 400/400"), std::string::npos) << r.out;

  const Scratch t("mixed_api");
  predict_levels(t.dir() / "a", "1,4", "--input-length 100 --output-length 16");
  const auto o = run_servebench(
      fmt::format("predict sweep --sim tgi --api openai --ignore-eos -n 12 --input-length 100 "
                  "--output-length 16 --concurrency 8 -o {} -q",
                  (t.dir() / "b").string()));
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r2 =
      run_servebench(fmt::format("calibrate {} {} -o {}", (t.dir() / "a").string(),
                                 (t.dir() / "b").string(), (t.dir() / "f.yaml").string()));
  EXPECT_EQ(r2.code, 2) << r2.out;
  EXPECT_NE(r2.out.find("api tgi vs openai"), std::string::npos) << r2.out;
}

TEST(CalibrateBadInput, FoldersWithoutRequestsOrSummaryAreNamed) {
  const Scratch s("norequests");
  predict_levels(s.dir() / "a", "1,4,8", "--input-length 100 --output-length 16");
  fs::remove(s.dir() / "a" / "c4" / "requests.jsonl");
  const auto r = run_servebench(
      fmt::format("calibrate {} -o {}", (s.dir() / "a").string(), (s.dir() / "f.yaml").string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("c4' has no requests.jsonl"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("needs the run's requests.jsonl"), std::string::npos) << r.out;
  fs::create_directories(s.dir() / "empty");
  const auto e = run_servebench(fmt::format("calibrate {} -o {}", (s.dir() / "empty").string(),
                                            (s.dir() / "f.yaml").string()));
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("has no summary.json"), std::string::npos) << e.out;
}

}  // namespace
}  // namespace sb::testing
