#pragma once
// What the mpirun tests share: starting servebench under mpirun (as a child process, with
// Open MPI settings that work in containers, as root, on one host with few cores) and
// reading the run folders it writes.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include "metrics/request_record.h"
#include "report/request_jsonl.h"

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
  if (std::getenv("SERVEBENCH_SANITIZED"))
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
    out.records.push_back(report::parse_request_jsonl(line));
    const nlohmann::json j = nlohmann::json::parse(line);
    out.ranks.push_back(j.value("rank", -1));
  }
  return out;
}

}  // namespace sb::mpitest
