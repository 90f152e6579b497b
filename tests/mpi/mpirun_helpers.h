#pragma once
// What the mpirun tests share: starting servebench under mpirun (as a child process, with
// Open MPI settings that work in containers, as root, on one host with few cores) and
// reading the run folders it writes.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../support/timing_slack.h"
#include "metrics/request_record.h"
#include "results/request_jsonl.h"
#include "sim/server.h"

namespace sb::mpitest {

struct Cmd {
  int code = -1;
  std::string out;
};

// `cmd` through the shell, stdout and stderr together.
inline Cmd run_shell(const std::string& cmd) {
  Cmd r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline const char* kMpiEnv =
    "OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none "
    "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 "
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=";

// `servebench ARGS` on `np` ranks.
inline Cmd mpirun(int np, const std::string& args, const std::string& extra_env = "") {
  return run_shell(std::string("env ") + kMpiEnv + " " + extra_env + " " + SERVEBENCH_MPIEXEC +
                   " --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " " +
                   SERVEBENCH_BINARY + " " + args);
}

// Why an mpirun test cannot run here ("" when it can).
inline std::string skip_reason() {
  if (testing::sanitized())
    return "MPI runtime leaks are not ours; the MPI tests run in the plain build";
  if (run_shell(std::string(SERVEBENCH_MPIEXEC) + " --version").code != 0) return "no mpirun";
  return "";
}

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << p;
  return nlohmann::json::parse(in, nullptr, false);
}

// A merged requests.jsonl: the records and each line's "rank" (-1 when absent).
struct Lines {
  std::vector<metrics::RequestRecord> records;
  std::vector<int> ranks;
};

inline Lines read_requests(const std::filesystem::path& p) {
  Lines out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    out.records.push_back(results::parse_request_jsonl(line));
    const nlohmann::json j = nlohmann::json::parse(line);
    out.ranks.push_back(j.value("rank", -1));
  }
  return out;
}

// A test with an in-process simulator on loopback (so that its trace shows what the
// server received) and a fresh folder, both removed at the end (the folder only when
// the test passed). Skips where mpirun cannot run.
class SimFixture : public ::testing::Test {
 protected:
  SimFixture(double time_scale, std::string dir_prefix)
      : time_scale_(time_scale), dir_prefix_(std::move(dir_prefix)) {}
  void SetUp() override {
    if (const std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
    sim::SimConfig c = sim::preset_config("instant");
    c.server.host = "127.0.0.1";
    c.server.port = 0;
    c.server.time_scale = time_scale_;  // decode steps of time_scale ms
    c.server.threads = 1;
    sim_ = std::make_unique<sim::Server>(c);
    sim_->start();
    dir_ = std::filesystem::temp_directory_path() /
           (dir_prefix_ + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (sim_) sim_->stop();
    if (!HasFailure() && !dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<sim::Server> sim_;
  std::filesystem::path dir_;

 private:
  double time_scale_;
  std::string dir_prefix_;
};

}  // namespace sb::mpitest
