// `mpirun -np 3 servebench prof` against an in-process simulator on loopback (issue 9's
// must-show list). Each case starts mpirun as a child process; the simulator runs in this
// test process so its trace shows what the server received.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "load/arrival_schedule.h"
#include "metrics/run_summary.h"
#include "mpirun_helpers.h"
#include "sim/server.h"

namespace sb {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

using mpitest::Cmd;
using mpitest::mpirun;
using mpitest::run_shell;

class Distributed : public mpitest::SimFixture {
 protected:
  // 4 ms decode steps: deterministic latencies well above timer noise.
  Distributed() : SimFixture(4.0, "servebench-mpi-") {}
  std::string load_args(const std::string& out, const std::string& load) const {
    return "prof --base-url " + sim_->url() +
           " --api tgi --input-length 32 --output-length 16 --quiet --no-progress -o " + out + " " +
           load;
  }
};

using mpitest::Lines;
using mpitest::read_json;
using mpitest::read_requests;

double at(const json& s, const char* metric, const char* stat) {
  return s["metrics"][metric][stat].get<double>();
}

// Same total load, one process and three ranks: same count; for the deterministic preset
// the same latency percentiles within the run-to-run tolerance of this shared 2-core host
// (10% + 3 ms); merged percentiles are exactly those of the merged requests.jsonl.
TEST_F(Distributed, ThreeRanksMatchOneProcessAndMergeExactly) {
  const std::string load = "--concurrency 6 -n 90";
  const fs::path one = dir_ / "one", three = dir_ / "three";
  const auto single = run_shell(std::string(SERVEBENCH_BINARY) + " " + load_args(one, load));
  ASSERT_EQ(single.code, 0) << single.out;
  const auto multi = mpirun(3, load_args(three, load));
  ASSERT_EQ(multi.code, 0) << multi.out;

  const json s1 = read_json(one / "summary.json"), s3 = read_json(three / "summary.json");
  EXPECT_EQ(s3["run"]["requests"]["total"], 90);
  EXPECT_EQ(s3["run"]["requests"]["ok"], 90);
  EXPECT_EQ(s1["run"]["requests"]["total"], s3["run"]["requests"]["total"]);
  EXPECT_EQ(s3["run"]["incomplete"], false);
  EXPECT_TRUE(s3["run"]["missing_ranks"].empty());
  for (const char* m : {"e2e_ms", "ttft_ms", "tpot_ms"})
    for (const char* p : {"p50", "p90"}) {
      const double a = at(s1, m, p), b = at(s3, m, p);
      EXPECT_NEAR(a, b, 0.10 * std::max(a, b) + 3.0) << m << " " << p;
    }

  // Per-rank diagnosis: three ranks, each with its share, clock offset and uncertainty.
  const json& ranks = s3["distributed"]["ranks"];
  ASSERT_EQ(ranks.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ranks[r]["state"], "done");
    EXPECT_EQ(ranks[r]["requests"]["total"], 30);
    EXPECT_TRUE(ranks[r]["clock_offset_ms"].is_number());
    EXPECT_LT(ranks[r]["clock_uncertainty_ms"].get<double>(), 50.0);
  }

  // requests.jsonl: every id once, each with its rank (ids interleave: id % 3 == rank).
  const Lines lines = read_requests(three / "requests.jsonl");
  ASSERT_EQ(lines.records.size(), 90u);
  for (size_t i = 0; i < lines.records.size(); ++i) {
    EXPECT_EQ(lines.records[i].id, i);
    EXPECT_EQ(lines.ranks[i], static_cast<int>(i % 3));
  }
  // The merged summary is summarize_run over exactly these records.
  const metrics::RunSummary again = metrics::summarize_run(lines.records, metrics::RunInfo{});
  auto same = [](double a, double b) { EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a))); };
  for (auto [name, dist] :
       {std::pair{"e2e_ms", &again.metrics.e2e_ms}, std::pair{"ttft_ms", &again.metrics.ttft_ms},
        std::pair{"itl_ms", &again.metrics.itl_ms}, std::pair{"tpot_ms", &again.metrics.tpot_ms}}) {
    ASSERT_GT(dist->count, 0) << name;
    same(at(s3, name, "p50"), dist->p50);
    same(at(s3, name, "p99"), dist->p99);
    same(at(s3, name, "max"), dist->max);
  }
}

// An open-loop schedule split over three ranks: the server sees every scheduled request
// exactly once, and every request keeps its place in the one global schedule.
TEST_F(Distributed, OpenLoopSplitSendsEveryScheduledRequestOnce) {
  const fs::path out = dir_ / "open";
  const auto r = mpirun(3, load_args(out, "--request-rate 60 --arrival poisson --seed 7 -n 60"));
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_TRUE(sim_->wait_idle(std::chrono::seconds(5)));
  std::map<std::string, int> seen;
  for (const auto& t : sim_->trace()) ++seen[t.request_id];
  ASSERT_EQ(seen.size(), 60u);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(seen["servebench-" + std::to_string(i)], 1) << i;

  const Lines lines = read_requests(out / "requests.jsonl");
  ASSERT_EQ(lines.records.size(), 60u);
  const auto schedule = load::make_schedule(
      {.rate_per_s = 60, .arrival = load::Arrival::poisson, .burstiness = 1.0, .seed = 7}, 60);
  std::set<int> ranks;
  for (size_t i = 0; i < 60; ++i) {
    const auto& rec = lines.records[i];
    EXPECT_EQ(rec.id, i);
    EXPECT_EQ(lines.ranks[i], static_cast<int>(i % 3));
    ranks.insert(lines.ranks[i]);
    // Same absolute instants: offsets from request 0 are the global schedule's, on every rank.
    EXPECT_NEAR(static_cast<double>(rec.t_sched_ns - lines.records[0].t_sched_ns),
                static_cast<double>((schedule[i] - schedule[0]).count()), 1000.0)
        << i;
  }
  EXPECT_EQ(ranks.size(), 3u);
}

// A rank that cannot reach the target is named; the others' results are kept; incomplete.
TEST_F(Distributed, UnreachableRankIsNamedAndRunMarkedIncomplete) {
  const fs::path out = dir_ / "unreachable";
  const auto r =
      mpirun(3, load_args(out, "--concurrency 3 -n 30"), "SERVEBENCH_MPI_FAULT=unreachable:2");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find(":2"), std::string::npos) << r.out;
  const json s = read_json(out / "summary.json");
  EXPECT_EQ(s["run"]["incomplete"], true);
  ASSERT_EQ(s["run"]["missing_ranks"].size(), 1u);
  EXPECT_NE(s["run"]["missing_ranks"][0].get<std::string>().find(":2"), std::string::npos);
  EXPECT_EQ(s["run"]["requests"]["total"], 20);  // ranks 0 and 1: ids 0,1,3,4,...
  EXPECT_EQ(s["distributed"]["ranks"][2]["state"], "failed");
}

// A rank killed mid-run, with the launcher keeping the others alive: rank 0 gives it up
// after its silence, keeps everything else and what the dead rank's folder holds.
TEST_F(Distributed, KilledRankLeavesIncompleteMarkedResult) {
  const fs::path out = dir_ / "killed";
  const auto r = mpirun(3, load_args(out, "--concurrency 3 -n 60"),
                        "OMPI_MCA_orte_abort_on_non_zero_status=0 SERVEBENCH_MPI_SILENCE_S=2 "
                        "SERVEBENCH_MPI_FAULT=kill:1:4");
  EXPECT_NE(r.code, 0) << r.out;
  const json s = read_json(out / "summary.json");
  ASSERT_TRUE(s.is_object()) << r.out;
  EXPECT_EQ(s["run"]["incomplete"], true);
  ASSERT_EQ(s["run"]["missing_ranks"].size(), 1u);
  EXPECT_NE(s["run"]["missing_ranks"][0].get<std::string>().find(":1"), std::string::npos);
  const json& ranks = s["distributed"]["ranks"];
  EXPECT_EQ(ranks[1]["state"], "died");
  EXPECT_GE(ranks[1]["records"].get<int>(), 1);  // recovered from rank-1/requests.jsonl
  EXPECT_EQ(ranks[0]["requests"]["total"], 20);
  EXPECT_EQ(ranks[2]["requests"]["total"], 20);
  const Lines lines = read_requests(out / "requests.jsonl");
  EXPECT_EQ(lines.records.size(), s["run"]["requests"]["total"].get<size_t>());
}

// Open MPI's default: the job is aborted when a rank dies, so rank 0 never merges; the rank
// folders hold the results and `servebench merge` turns them into an incomplete-marked run.
TEST_F(Distributed, AbortedJobIsRecoveredByMerge) {
  const fs::path out = dir_ / "aborted";
  const auto r =
      mpirun(3, load_args(out, "--concurrency 3 -n 60"), "SERVEBENCH_MPI_FAULT=kill:1:4");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_FALSE(fs::exists(out / "summary.json"));
  ASSERT_TRUE(fs::exists(out / "mpi.json")) << r.out;
  const auto m = run_shell(std::string(SERVEBENCH_BINARY) + " merge -q " + out.string());
  ASSERT_EQ(m.code, 0) << m.out;
  const json s = read_json(out / "summary.json");
  EXPECT_EQ(s["run"]["incomplete"], true);
  bool named = false;
  for (const auto& n : s["run"]["missing_ranks"])
    named = named || n.get<std::string>().find(":1") != std::string::npos;
  EXPECT_TRUE(named) << s["run"]["missing_ranks"].dump();
  EXPECT_EQ(s["distributed"]["ranks"][1]["state"], "died");
  const Lines lines = read_requests(out / "requests.jsonl");
  EXPECT_EQ(lines.records.size(), s["run"]["requests"]["total"].get<size_t>());
  EXPECT_GE(lines.records.size(), 4u);
}

}  // namespace
}  // namespace sb
