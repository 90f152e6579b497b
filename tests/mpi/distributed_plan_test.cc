// `mpirun -np 3 servebench sweep` and `servebench run PLAN.yaml` (issue 9): every run of the
// sweep or plan split over the ranks and merged into the folder one process writes, against
// an in-process simulator on loopback (or the plan's own simulators and launched server).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/run_parity.h"
#include "mpirun_helpers.h"
#include "sim/server.h"

namespace sb {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using mpitest::mpirun;
using mpitest::read_json;
using mpitest::read_requests;
using mpitest::run_shell;

class DistributedPlan : public mpitest::SimFixture {
 protected:
  DistributedPlan() : SimFixture(2.0, "servebench-mpiplan-") {}  // 2 ms decode steps
  std::string sweep_args(const fs::path& out, const std::string& load) const {
    return "sweep --base-url " + sim_->url() +
           " --api tgi --input-length 16 --output-length 8 --quiet --no-progress -o " +
           out.string() + " " + load;
  }
};

// One run folder written by rank 0 from `participants` ranks: `total` requests, each id once,
// each with the rank that sent it (ids interleave over the participants), complete.
void expect_merged_run(const fs::path& run, int total, int participants) {
  SCOPED_TRACE(run.string());
  const json s = read_json(run / "summary.json");
  EXPECT_EQ(s["run"]["requests"]["total"], total);
  EXPECT_EQ(s["run"]["incomplete"], false);
  EXPECT_EQ(s["distributed"]["ranks_total"], participants);
  EXPECT_TRUE(fs::exists(run / "mpi.json"));
  EXPECT_TRUE(fs::exists(run / "summary.csv"));
  const mpitest::Lines lines = read_requests(run / "requests.jsonl");
  ASSERT_EQ(lines.records.size(), static_cast<size_t>(total));
  for (size_t i = 0; i < lines.records.size(); ++i) {
    EXPECT_EQ(lines.records[i].id, i);
    EXPECT_EQ(lines.ranks[i], static_cast<int>(i % static_cast<size_t>(participants))) << i;
  }
}

std::map<std::string, json> runs_by_folder(const fs::path& plan_dir) {
  std::map<std::string, json> out;
  const json index = read_json(plan_dir / "index.json");
  for (const auto& r : index["runs"]) out[r["folder"].get<std::string>()] = r;
  return out;
}

// The same sweep in one process and on three ranks: the same steps, each with the same
// request count, each one merged folder; a step below the rank count runs on fewer ranks.
TEST_F(DistributedPlan, SweepStepsMatchOneProcess) {
  const std::string load = "--concurrency 2,6 -n 30";
  const fs::path one = dir_ / "one", three = dir_ / "three";
  const auto single = run_shell(std::string(SERVEBENCH_BINARY) + " " + sweep_args(one, load));
  ASSERT_EQ(single.code, 0) << single.out;
  const auto multi = mpirun(3, sweep_args(three, load));
  ASSERT_EQ(multi.code, 0) << multi.out;

  const auto rows1 = runs_by_folder(one), rows3 = runs_by_folder(three);
  ASSERT_EQ(rows3.size(), 2u);
  for (const auto& [folder, row] : rows1) {
    ASSERT_TRUE(rows3.count(folder)) << folder;
    EXPECT_EQ(rows3.at(folder)["status"], "ok") << folder;
    EXPECT_EQ(rows3.at(folder)["requests"], row["requests"]) << folder;
    EXPECT_EQ(read_json(three / folder / "summary.json")["run"]["requests"]["total"],
              read_json(one / folder / "summary.json")["run"]["requests"]["total"]);
  }
  expect_merged_run(three / "c2", 30, 2);
  expect_merged_run(three / "c6", 30, 3);
  EXPECT_FALSE(fs::exists(three / "c2" / "rank-2"));  // rank 2 sat c2 out
}

// Open-loop steps: each step's one global schedule split over the ranks; the server sees
// every scheduled request of every step exactly once.
TEST_F(DistributedPlan, OpenLoopSweepSendsEveryScheduledRequestOnce) {
  const fs::path out = dir_ / "open";
  const auto r =
      mpirun(3, sweep_args(out, "--request-rate 40,80 --arrival poisson --seed 5 -n 24"));
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_TRUE(sim_->wait_idle(std::chrono::seconds(5)));
  std::map<std::string, int> seen;
  for (const auto& t : sim_->trace()) ++seen[t.request_id];
  ASSERT_EQ(seen.size(), 24u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(seen["servebench-" + std::to_string(i)], 2) << i;
  expect_merged_run(out / "r40", 24, 3);
  expect_merged_run(out / "r80", 24, 3);
}

// A search whose next level depends on the last result: every rank follows rank 0's
// decisions (no rank out of step, one folder per measured level, the search recorded).
TEST_F(DistributedPlan, SaturationSearchFollowsRankZerosDecisions) {
  const fs::path out = dir_ / "saturation";
  const auto r = mpirun(
      3,
      sweep_args(out, "--until-saturation --saturation-max-concurrency 8 --requests-per-level 4"));
  ASSERT_EQ(r.code, 0) << r.out;
  const json index = read_json(out / "index.json");
  ASSERT_EQ(index["searches"].size(), 1u) << index.dump();
  EXPECT_EQ(index["searches"][0]["kind"], "saturation");
  ASSERT_GE(index["runs"].size(), 2u);
  for (const auto& row : index["runs"]) {
    EXPECT_EQ(row["status"], "ok") << row.dump();
    const int level = static_cast<int>(row["load_level"].get<double>());
    expect_merged_run(out / row["folder"].get<std::string>(), 4 * level, std::min(3, level));
  }
}

uint16_t free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  close(fd);
  return ntohs(a.sin_port);
}

// A plan with a launched server and a simulator provider: the server is launched by rank 0
// only, and every run matches the single-process run's request count in one merged folder.
TEST_F(DistributedPlan, RunPlanMatchesOneProcessAndLaunchesOnce) {
  const std::string port = std::to_string(free_port());
  const fs::path launches = dir_ / "launches.txt";
  const std::string url = "http://127.0.0.1:" + port;
  std::ofstream(dir_ / "plan.yaml")
      << "name: mpi-plan\n"
         "providers:\n"
         "  - id: live\n"
         "    base_url: "
      << url << "\n    launch: {command: \"echo launched >> " << launches.string() << "; exec "
      << SERVEBENCH_BINARY << " sim --preset instant --threads 1 --port " << port
      << "\", ready_url: " << url
      << "/health, ready_timeout: 20s, stop_grace: 2s}\n"
         "  - {id: simulated, sim: instant}\n"
         "defaults: {api: tgi, input_length: 16, output_length: 8}\n"
         "stages:\n"
         "  - {name: base, kind: baseline, concurrency: 1, "
         "num_requests: 5}\n"
         "  - {name: sw, kind: sweep, concurrency: [3, 6], "
         "num_requests: 24}\n";
  const std::string plan = (dir_ / "plan.yaml").string();
  const fs::path one = dir_ / "one", three = dir_ / "three";
  const auto single =
      run_shell(std::string(SERVEBENCH_BINARY) + " run " + plan + " -q -o " + one.string());
  ASSERT_EQ(single.code, 0) << single.out;
  const auto multi = mpirun(3, "run " + plan + " -q -o " + three.string());
  ASSERT_EQ(multi.code, 0) << multi.out;

  std::ifstream in(launches);
  int launched = 0;
  for (std::string line; std::getline(in, line);) launched += line == "launched";
  EXPECT_EQ(launched, 2);  // once by the single process, once by rank 0

  const auto rows1 = runs_by_folder(one), rows3 = runs_by_folder(three);
  ASSERT_EQ(rows1.size(), 6u);
  ASSERT_EQ(rows3.size(), 6u);
  for (const auto& [folder, row] : rows1) {
    ASSERT_TRUE(rows3.count(folder)) << folder;
    EXPECT_EQ(rows3.at(folder)["status"], "ok") << folder;
    EXPECT_EQ(rows3.at(folder)["requests"], row["requests"]) << folder;
    const int level = static_cast<int>(row["load_level"].get<double>());
    expect_merged_run(three / folder, row["requests"].get<int>(), std::min(3, level));
  }
  EXPECT_TRUE(rows3.at("001-live-base-c1")["cold_start_s"].is_number());
}

// A rank that cannot reach the target: the run is written marked incomplete and recorded as
// failed (exit code 3, as prof), and the target's remaining steps are skipped.
TEST_F(DistributedPlan, UnreachableRankMarksTheRunIncomplete) {
  const fs::path out = dir_ / "unreachable";
  const auto r =
      mpirun(3, sweep_args(out, "--concurrency 3,6 -n 30"), "SERVEBENCH_MPI_FAULT=unreachable:2");
  EXPECT_EQ(r.code, 3) << r.out;
  const json index = read_json(out / "index.json");
  ASSERT_EQ(index["runs"].size(), 1u) << index.dump();
  EXPECT_EQ(index["runs"][0]["status"], "failed");
  EXPECT_NE(index["runs"][0]["error"].get<std::string>().find(":2 failed"), std::string::npos);
  const json s = read_json(out / "c3" / "summary.json");
  EXPECT_EQ(s["run"]["incomplete"], true);
  EXPECT_EQ(s["run"]["requests"]["total"], 20);  // ranks 0 and 1's ids
  EXPECT_EQ(s["distributed"]["ranks"][2]["state"], "failed");
}

// A rank killed mid-plan (the launcher keeping the others alive): rank 0 gives it up after
// its silence, writes that run marked incomplete and the index, and ends the job.
TEST_F(DistributedPlan, KilledRankEndsThePlanWithTheRunMarkedIncomplete) {
  const fs::path out = dir_ / "killed";
  const auto r = mpirun(3, sweep_args(out, "--concurrency 3,6 -n 60"),
                        "OMPI_MCA_orte_abort_on_non_zero_status=0 SERVEBENCH_MPI_SILENCE_S=2 "
                        "SERVEBENCH_MPI_FAULT=kill:1:4");
  EXPECT_NE(r.code, 0) << r.out;
  const json index = read_json(out / "index.json");
  ASSERT_EQ(index["runs"].size(), 1u) << index.dump() << r.out;
  EXPECT_EQ(index["runs"][0]["status"], "failed");
  EXPECT_NE(index["runs"][0]["error"].get<std::string>().find(":1 died"), std::string::npos);
  const json s = read_json(out / "c3" / "summary.json");
  EXPECT_EQ(s["run"]["incomplete"], true);
  EXPECT_EQ(s["distributed"]["ranks"][1]["state"], "died");
  EXPECT_FALSE(fs::exists(out / "c6"));
}

// The one-run-pipeline parity (issue 14, tests/e2e/run_pipeline_test.cc) under mpirun -np 2:
// prof and a 2-level sweep with the same flags write the same files and fields as in one
// process (telemetry sampled by rank 0, quality of every rank's records, the seed), and an
// unreachable target exits 3.
TEST_F(DistributedPlan, ProfAndSweepKeepEveryFlagOfOneProcess) {
  const fs::path dataset = parity::write_dataset(dir_);
  const std::string metrics_url = sim_->url() + "/metrics";
  const std::string flags = parity::common_flags(dataset, metrics_url);
  for (const auto& [name, args, runs] : std::vector<std::tuple<std::string, std::string, size_t>>{
           {"prof", "prof " + flags + " --concurrency 2 -n 16", 1},
           {"sweep", "sweep " + flags + " --concurrency 2,4 -n 16", 2}}) {
    const fs::path out = dir_ / name;
    const auto r = mpirun(2, args + " -o " + out.string());
    ASSERT_EQ(r.code, 0) << name << ": " << r.out;
    const auto folders = parity::run_folders(out);
    ASSERT_EQ(folders.size(), runs) << name;
    for (const auto& run : folders) {
      parity::expect_full_run(run, metrics_url, "mpirun -np 2 " + name);
      const json s = read_json(run / "summary.json");
      // Quality over the records of both ranks, not rank 0's alone.
      EXPECT_EQ(s["quality"]["scored"].get<int64_t>(), s["run"]["requests"]["ok"].get<int64_t>());
    }
  }
  const std::string dead =
      " --base-url http://127.0.0.1:1 --api tgi --connect-timeout 2s -n 4 -q --no-progress -o ";
  EXPECT_EQ(mpirun(2, "prof" + dead + (dir_ / "dead-prof").string() + " --concurrency 2").code, 3);
  EXPECT_EQ(mpirun(2, "sweep" + dead + (dir_ / "dead-sweep").string() + " --concurrency 2,4").code,
            3);
}

}  // namespace
}  // namespace sb
