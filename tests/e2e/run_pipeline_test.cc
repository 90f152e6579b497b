// One measured run behind every command (issue 14): prof, a 2-level sweep and a 2-run plan,
// given the same flags (--server-pid, --telemetry-interval, --server-metrics, --sim-seed,
// --save-outputs with references, --goodput; as plan defaults for `run`), write the same
// files and fields, and exit with the same code for an unreachable target. The mpirun
// variants are in tests/mpi/distributed_plan_test.cc.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "../support/run_parity.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb {
namespace {

namespace fs = std::filesystem;
using testing::run_servebench;

class RunPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb_pipeline_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    dataset_ = parity::write_dataset(dir_);
    metrics_sim_ = testing::start_sim("instant");  // the server whose /metrics is scraped
    metrics_url_ = metrics_sim_->url() + "/metrics";
  }
  void TearDown() override {
    metrics_sim_->stop();
    fs::remove_all(dir_);
  }
  std::string flags() const { return parity::common_flags(dataset_, metrics_url_); }

  fs::path write_plan(const std::string& name, const std::string& providers) const {
    const fs::path p = dir_ / (name + ".yaml");
    std::ofstream(p) << "name: " << name << "\nproviders:\n"
                     << providers << "defaults:\n"
                     << parity::plan_defaults(dataset_, metrics_url_)
                     << "stages:\n  - {name: s, kind: sweep, concurrency: [2, 4], "
                        "num_requests: 16}\n";
    return p;
  }

  fs::path dir_, dataset_;
  std::unique_ptr<sim::Server> metrics_sim_;
  std::string metrics_url_;
};

TEST_F(RunPipeline, EveryCommandWritesTheSameFilesAndFields) {
  struct Case {
    std::string name, args;
    size_t runs;
  };
  const fs::path plan = write_plan("two-runs", "  - {id: sim, sim: instant}\n");
  const std::vector<Case> cases = {
      {"prof", "prof " + flags() + " --concurrency 2 -n 16", 1},
      {"sweep", "sweep " + flags() + " --concurrency 2,4 -n 16", 2},
      {"run", "run " + plan.string() + " -q", 2},
  };
  std::map<uint64_t, std::string> prof_outputs;
  for (const Case& c : cases) {
    const fs::path out = dir_ / c.name;
    const auto r = run_servebench(c.args + " -o " + out.string());
    ASSERT_EQ(r.code, 0) << c.name << ": " << r.out;
    const auto runs = parity::run_folders(out);
    ASSERT_EQ(runs.size(), c.runs) << c.name;
    for (const auto& run : runs) {
      parity::expect_full_run(run, metrics_url_, c.name);
      // The same seed and prompts: the same texts under every command.
      const auto texts = parity::outputs(run);
      if (prof_outputs.empty()) prof_outputs = texts;
      for (const auto& [i, text] : texts) {
        if (prof_outputs.count(i)) {
          EXPECT_EQ(text, prof_outputs[i]) << c.name << " prompt " << i;
        }
      }
    }
  }
  // The seed matters: without --sim-seed the simulator writes other texts.
  const fs::path other = dir_ / "default-seed";
  const auto r = run_servebench("prof --sim instant --api tgi --dataset " + dataset_.string() +
                                " --save-outputs -n 8 -q --no-progress -o " + other.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto texts = parity::outputs(other);
  ASSERT_FALSE(texts.empty());
  EXPECT_NE(texts.begin()->second, prof_outputs[texts.begin()->first]);
}

TEST_F(RunPipeline, UnreachableTargetExitsThreeUnderEveryCommand) {
  const std::string dead = "http://127.0.0.1:1";
  const fs::path plan = write_plan("dead", "  - {id: dead, base_url: " + dead + "}\n");
  const std::string load = " --api tgi --connect-timeout 2s -q --no-progress -n 4";
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
           {"prof", "prof --base-url " + dead + load},
           {"sweep", "sweep --base-url " + dead + load + " --concurrency 1,2"},
           {"run", "run " + plan.string() + " -q"}}) {
    const auto r = run_servebench(args + " -o " + (dir_ / ("dead-" + name)).string());
    EXPECT_EQ(r.code, 3) << name << ": " << r.out;
  }
}

TEST_F(RunPipeline, MaxErrorRateGivesExitFourUnderProfAndSweep) {
  // Every request is answered 503 (a fault header on every request): all fail.
  const std::string load =
      " --sim instant --api tgi -H 'x-sim-fault: status=503' -n 4 -q --no-progress "
      "--max-error-rate 0.5";
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
           {"prof", "prof" + load}, {"sweep", "sweep" + load + " --concurrency 1,2"}}) {
    const auto r = run_servebench(args + " -o " + (dir_ / ("errors-" + name)).string());
    EXPECT_EQ(r.code, 4) << name << ": " << r.out;
  }
}

}  // namespace
}  // namespace sb
