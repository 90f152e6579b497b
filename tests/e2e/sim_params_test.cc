// `servebench sim`'s parameters: the precedence preset < --config file < flags (the preset
// itself: --preset beats the file's preset:), ranges as usage errors (never wrapped), and
// seeds that keep all 64 bits from the flag, the file and `prof` to the outputs.
#include "cli/sim_params.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "run_binary.h"
#include "sim/config.h"

namespace sb::cli {
namespace {

namespace fs = std::filesystem;

// A YAML file under the temp folder, removed at the end of the test.
class TempYaml {
 public:
  explicit TempYaml(const std::string& text)
      : path_(fs::temp_directory_path() / ("servebench-sim-params-" + std::to_string(getpid()) +
                                           "-" + std::to_string(counter_++) + ".yaml")) {
    std::ofstream(path_) << text;
  }
  ~TempYaml() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string usage_message(const SimFlags& f) {
  try {
    resolve_sim_config(f);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "(no error)";
}

TEST(SimParams, PresetFlagBeatsTheFilesPreset) {
  const TempYaml file("preset: pytorch\nmax_batch_size: 7\n");
  SimFlags f;
  f.config_file = file.path();
  EXPECT_EQ(resolve_sim_config(f).server.preset, "pytorch");  // the file's, without the flag
  f.preset = "instant";
  const sim::SimConfig c = resolve_sim_config(f);
  EXPECT_EQ(c.server.preset, "instant");
  EXPECT_EQ(c.sched.max_batch_size, 7) << "the file still overrides the flag's preset";
  f.config_file.clear();
  f.preset.reset();
  EXPECT_EQ(resolve_sim_config(f).server.preset, "tgi");  // neither: the default
}

TEST(SimParams, FlagsBeatTheFileAndTheFileBeatsThePreset) {
  const TempYaml file("preset: tgi\nmax-batch-size: 7\nqueue_limit: 3\nthreads: 5\n");
  SimFlags f;
  f.config_file = file.path();
  f.values["max-batch-size"] = "9";
  f.default_threads = 2;
  const sim::SimConfig c = resolve_sim_config(f);
  EXPECT_EQ(c.sched.max_batch_size, 9);
  EXPECT_EQ(c.sched.queue_limit, 3);
  EXPECT_EQ(c.server.threads, 5) << "the file's threads, not the command's default";
  f.config_file.clear();
  EXPECT_EQ(resolve_sim_config(f).server.threads, 2);
}

TEST(SimParams, OutOfRangeIntegersAreUsageErrorsNamingTheRange) {
  SimFlags f;
  for (const char* bad : {"70000", "65536", "-1", "1e9"}) {
    f.values["port"] = bad;
    const std::string msg = usage_message(f);
    EXPECT_NE(msg.find("--port"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find("out of range 0..65535"), std::string::npos) << bad << ": " << msg;
  }
  f.values["port"] = "65535";
  EXPECT_EQ(resolve_sim_config(f).server.port, 65535);
  f.values["port"] = "8.5";
  EXPECT_NE(usage_message(f).find("must be an integer"), std::string::npos);
  f.values.clear();
  f.values["max-batch-size"] = "4294967296";
  EXPECT_NE(usage_message(f).find("out of range -2147483648..2147483647"), std::string::npos);

  const TempYaml file("port: 70000\n");
  f.values.clear();
  f.config_file = file.path();
  const std::string msg = usage_message(f);
  EXPECT_NE(msg.find(file.path() + ": port '70000' is out of range 0..65535"), std::string::npos)
      << msg;
}

TEST(SimParams, SeedsKeepAll64Bits) {
  SimFlags f;
  // 2^53 + 1: the first integer a double cannot hold.
  f.values["seed"] = "9007199254740993";
  EXPECT_EQ(resolve_sim_config(f).server.seed, 9007199254740993ull);
  f.values["seed"] = "18446744073709551615";
  EXPECT_EQ(resolve_sim_config(f).server.seed, 18446744073709551615ull);
  f.values["seed"] = "18446744073709551616";
  EXPECT_NE(usage_message(f).find("out of range 0..18446744073709551615"), std::string::npos);

  const TempYaml file("seed: 18446744073709551557\n");
  f.values.clear();
  f.config_file = file.path();
  EXPECT_EQ(resolve_sim_config(f).server.seed, 18446744073709551557ull);
}

TEST(SimCommand, PortOutOfRangeExitsTwo) {
  const auto r = sb::testing::run_servebench("sim --preset instant --port 70000");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--port"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0..65535"), std::string::npos) << r.out;
}

// prof's --seed and --sim-seed reach the summary's config echo with every digit.
TEST(SimCommand, ProfSeedsReachTheSummaryExactly) {
  const fs::path dir =
      fs::temp_directory_path() / ("servebench-sim-params-prof-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const auto r = sb::testing::run_servebench(
      "prof --sim instant -n 2 --output-length 3 --seed 18446744073709551615 "
      "--sim-seed 9007199254740993 --no-progress -q -o " +
      dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(dir / "summary.json");
  const auto s = nlohmann::json::parse(in);
  ASSERT_TRUE(s["config"]["load"]["seed"].is_number_unsigned()) << s["config"].dump();
  EXPECT_EQ(s["config"]["load"]["seed"].get<uint64_t>(), 18446744073709551615ull);
  ASSERT_TRUE(s["config"]["sim_seed"].is_number_unsigned()) << s["config"].dump();
  EXPECT_EQ(s["config"]["sim_seed"].get<uint64_t>(), 9007199254740993ull);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::cli
