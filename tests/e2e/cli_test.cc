// The servebench binary as users run it: `prof --sim`, `sim` + `prof` as two
// processes, output files, exit codes and messages for bad input.
#include <gtest/gtest.h>

#include "../support/temp_dir.h"
#include "run_binary.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

using sb::testing::CmdResult;
CmdResult run(const std::string& args) {
  return sb::testing::run_servebench(args);
}

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("cli-" + name, /*create=*/false);
}

std::vector<std::string> lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

TEST(Cli, ProfAgainstEmbeddedSimulatorWritesEveryOutput) {
  const auto dir = temp_dir("embedded");
  const CmdResult r =
      run("prof --sim instant --api openai-chat -n 30 --concurrency 4 --warmup 2 "
          "--output-length 8 --goodput ttft:1000 --no-progress -o " +
          dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("ttft"), std::string::npos) << r.out;  // the terminal table

  const auto jsonl = lines(dir / "requests.jsonl");
  ASSERT_EQ(jsonl.size(), 32u);
  int warm = 0;
  for (const auto& l : jsonl) {
    const auto j = nlohmann::json::parse(l);
    for (const char* k :
         {"id", "class", "warmup", "ok", "status", "error_class", "error", "t_sched_s", "t_send_s",
          "ttft_ms", "tpot_ms", "e2e_ms", "scheduled_e2e_ms", "input_tokens", "output_tokens",
          "output_tokens_source", "events", "itl_ms"})
      EXPECT_TRUE(j.contains(k)) << k << " in " << l;
    EXPECT_TRUE(j["ok"].get<bool>()) << l;
    EXPECT_EQ(j["output_tokens"], 8);
    EXPECT_EQ(j["output_tokens_source"], "usage");
    warm += j["warmup"].get<bool>();
  }
  EXPECT_EQ(warm, 2);

  std::ifstream sf(dir / "summary.json");
  const auto s = nlohmann::json::parse(sf);
  EXPECT_EQ(s["schema"], "servebench.summary/1");
  EXPECT_EQ(s["run"]["requests"]["total"], 30);
  EXPECT_EQ(s["run"]["requests"]["ok"], 30);
  EXPECT_EQ(s["run"]["requests"]["warmup"], 2);
  EXPECT_EQ(s["metrics"]["ttft_ms"]["count"], 30);
  EXPECT_EQ(s["metrics"]["itl_ms"]["count"], 30 * 7);
  EXPECT_GT(s["throughput"]["requests_per_s"].get<double>(), 0);
  EXPECT_EQ(s["goodput"]["fraction"], 1.0);
  EXPECT_EQ(s["load"]["mode"], "closed");
  EXPECT_EQ(s["load"]["concurrency"], 4);
  EXPECT_EQ(s["config"]["api"], "openai-chat");
  EXPECT_FALSE(s["timeseries"].empty());
  const auto csv = lines(dir / "summary.csv");
  ASSERT_EQ(csv.size(), 2u);
  fs::remove_all(dir);
}

TEST(Cli, SecretsNeverReachTheOutputs) {
  const auto dir = temp_dir("secret");
  setenv("SB_TEST_KEY", "sk-very-secret-123", 1);
  const CmdResult r =
      run("prof --sim instant -n 3 --api-key-env SB_TEST_KEY -H 'X-Api-Key: hidden-456' "
          "--no-progress -o " +
          dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const auto& f : fs::directory_iterator(dir)) {
    std::ifstream in(f.path());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str().find("sk-very-secret-123"), std::string::npos) << f.path();
    EXPECT_EQ(ss.str().find("hidden-456"), std::string::npos) << f.path();
  }
  EXPECT_EQ(r.out.find("sk-very-secret-123"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Cli, SimProcessThenProfProcess) {
  // `servebench sim` prints its URL on the first line of stdout once it serves.
  int out_pipe[2];
  ASSERT_EQ(pipe(out_pipe), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    close(out_pipe[0]);
    execl(SERVEBENCH_BINARY, SERVEBENCH_BINARY, "sim", "--preset", "instant", "--port", "0",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out_pipe[1]);
  FILE* in = fdopen(out_pipe[0], "r");
  char line[256] = {};
  ASSERT_NE(fgets(line, sizeof line, in), nullptr);
  std::string url(line);
  while (!url.empty() && (url.back() == '\n' || url.back() == '\r')) url.pop_back();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;

  const auto dir = temp_dir("two-process");
  const CmdResult r = run("prof --base-url " + url +
                          " --api tgi -n 10 --concurrency 2 --no-progress -q -o " + dir.string());
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(in);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(lines(dir / "requests.jsonl").size(), 10u);
  EXPECT_TRUE(WIFEXITED(status)) << "the simulator should exit cleanly on SIGTERM";
  fs::remove_all(dir);
}

TEST(Cli, UnreachableTargetExitsThree) {
  const auto dir = temp_dir("unreachable");
  const CmdResult r =
      run("prof --base-url http://127.0.0.1:1 -n 3 --no-progress -o " + dir.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("cannot reach http://127.0.0.1:1"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(Cli, BadFlagsExitTwoNamingTheFlag) {
  struct Case {
    const char* args;
    const char* mentions;
  };
  for (const Case& c :
       {Case{"prof --sim instant --concurrency abc", "--concurrency"},
        Case{"prof --sim instant --duration 5x", "--duration"},
        Case{"prof --base-url ftp://x", "--base-url"},
        Case{"prof --sim instant --api grpc", "--api"},
        Case{"prof --sim instant --goodput ttfx:3", "--goodput"},
        Case{"prof --sim instant --extra-body '[1]'", "--extra-body"},
        Case{"prof --sim instant -H NoColon", "-H"},
        Case{"prof --sim instant --concurrency 2 --request-rate 3", "--request-rate"},
        Case{"prof --sim nosuchpreset", "preset"},
        Case{"prof --sim instant --no-such-flag", "--no-such-flag"}, Case{"prof", "--base-url"}}) {
    const CmdResult r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.mentions), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(Cli, MaxErrorRateExitsFour) {
  const auto dir = temp_dir("errors");
  const CmdResult r =
      run("prof --sim instant -n 5 -H 'x-sim-fault: status=503' --max-error-rate 0.1 "
          "--no-progress -o " +
          dir.string());
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_EQ(lines(dir / "requests.jsonl").size(), 5u);
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  fs::remove_all(dir);
}

}  // namespace

namespace {

TEST(Cli, InterruptWritesResultsFromWhatCompleted) {
  // SIGINT during a run: in-flight requests finish (grace period), the summary is
  // written and marked interrupted, and every finished request is on disk.
  const auto dir = temp_dir("interrupt");
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = dir.string();
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    execl(SERVEBENCH_BINARY, SERVEBENCH_BINARY, "prof", "--sim", "instant", "--sim-time-scale",
          "20", "--duration", "60s", "--concurrency", "4", "--output-length", "10", "--no-progress",
          "--grace-period", "5s", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  sleep(2);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  std::ifstream sf(dir / "summary.json");
  ASSERT_TRUE(sf) << "summary.json missing";
  const auto s = nlohmann::json::parse(sf);
  EXPECT_EQ(s["run"]["interrupted"], true);
  const auto jsonl = lines(dir / "requests.jsonl");
  EXPECT_GT(jsonl.size(), 4u);
  EXPECT_EQ(s["run"]["requests"]["total"].get<size_t>(), jsonl.size());
  for (const auto& l : jsonl) EXPECT_TRUE(nlohmann::json::parse(l)["ok"].get<bool>()) << l;
  fs::remove_all(dir);
}

}  // namespace
