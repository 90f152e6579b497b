#pragma once
// The one-run-pipeline parity check (issue 14): whatever command wrote a measured run (prof,
// a sweep level, a plan run, the same under mpirun), the same flags leave the same files and
// fields. Shared by tests/e2e (one process) and tests/mpi (mpirun -np 2).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sb::parity {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline constexpr uint64_t kSimSeed = 7;

// A dataset of 8 prompts, each with a reference, so that every run scores quality.
inline fs::path write_dataset(const fs::path& dir) {
  const fs::path p = dir / "refs.jsonl";
  std::ofstream out(p);
  for (int i = 0; i < 8; ++i)
    out << json{{"prompt", "Tell me about item number " + std::to_string(i)},
                {"reference", "item " + std::to_string(i) + " is a thing"},
                {"max_tokens", 8}}
               .dump()
        << "\n";
  return p;
}

// The flags under test, as prof / sweep take them (`metrics_url`: --server-metrics).
inline std::string common_flags(const fs::path& dataset, const std::string& metrics_url) {
  return "--sim instant --api tgi --dataset " + dataset.string() +
         " --save-outputs --goodput ttft:5000 --server-pid " + std::to_string(::getpid()) +
         " --telemetry-interval 20 --server-metrics " + metrics_url + " --sim-seed " +
         std::to_string(kSimSeed) + " -q --no-progress";
}

// The same as plan defaults.
inline std::string plan_defaults(const fs::path& dataset, const std::string& metrics_url) {
  return "  api: tgi\n  dataset: " + dataset.string() +
         "\n  save_outputs: true\n  goodput: [ttft:5000]\n  server_pid: " +
         std::to_string(::getpid()) + "\n  telemetry_interval: 20ms\n  server_metrics: [" +
         metrics_url + "]\n  sim_seed: " + std::to_string(kSimSeed) + "\n";
}

// Every folder under `root` (itself included) that holds a summary.json of a measured run.
inline std::vector<fs::path> run_folders(const fs::path& root) {
  std::vector<fs::path> out;
  if (fs::exists(root / "summary.json")) out.push_back(root);
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "summary.json") &&
        e.path().filename().string().rfind("rank-", 0) != 0)
      out.push_back(e.path());
  return out;
}

inline json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in, nullptr, false);
}

// Response text by prompt index (requests.jsonl "output"), for comparing runs' seeds.
inline std::map<uint64_t, std::string> outputs(const fs::path& run) {
  std::map<uint64_t, std::string> out;
  std::ifstream in(run / "requests.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("output") && j["ok"].get<bool>())
      out[j["id"].get<uint64_t>() % 8] = j["output"].get<std::string>();
  }
  return out;
}

// Every field the flags promise, in one run folder written by `what`.
inline void expect_full_run(const fs::path& run, const std::string& metrics_url,
                            const std::string& what) {
  SCOPED_TRACE(what + ": " + run.string());
  const json s = read_json(run / "summary.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_GT(s["run"]["requests"]["ok"].get<int64_t>(), 0);
  // --sim-seed reaches the simulator and the run facts.
  EXPECT_EQ(s["config"].value("sim_seed", uint64_t{0}), kSimSeed);
  EXPECT_EQ(s["config"].value("sim_preset", std::string()), "instant");
  // --save-outputs with references: texts on disk and corpus quality scored.
  ASSERT_TRUE(s.contains("quality")) << s.dump();
  EXPECT_GT(s["quality"]["scored"].get<int64_t>(), 0);
  EXPECT_FALSE(outputs(run).empty());
  // --goodput.
  ASSERT_TRUE(s["goodput"].is_object());
  EXPECT_TRUE(s["goodput"]["fraction"].is_number()) << s["goodput"].dump();
  // Telemetry: telemetry.jsonl, the summary block, --server-metrics scraped (the simulator's
  // DCGM-style GPU metrics among them), --server-pid sampled, at --telemetry-interval.
  ASSERT_TRUE(fs::exists(run / "telemetry.jsonl"));
  EXPECT_GT(fs::file_size(run / "telemetry.jsonl"), 0u);
  const json& t = s["telemetry"];
  ASSERT_TRUE(t.is_object()) << "no telemetry block";
  EXPECT_EQ(t["interval_ms"].get<double>(), 20.0);
  bool scraped = false, server_cpu = false, dcgm = false;
  for (const auto& src : t["sources"])
    if (src["kind"] == "server" && src["url"] == metrics_url && src["ok"].get<int64_t>() > 0)
      scraped = true;
  for (const auto& ser : t["series"]) {
    const std::string key = ser["key"].get<std::string>();
    server_cpu = server_cpu || key == "host/cpu_pct{process=\"server\"}";
    dcgm = dcgm || key.find("DCGM_FI_DEV_FB_USED") != std::string::npos;
  }
  EXPECT_TRUE(scraped) << t["sources"].dump();
  EXPECT_TRUE(server_cpu);
  EXPECT_TRUE(dcgm);
}

}  // namespace sb::parity
