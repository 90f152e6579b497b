// providers.yaml `launch:` and Ctrl-C: a stop request during the readiness wait ends it and
// stops the server's whole process group; a second Ctrl-C exits at once and still leaves no
// server; a ready URL already in use is refused before anything is launched.
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/text_file.h"
#include "child_process.h"
#include "common/error.h"
#include "plan/execute_run.h"
#include "plan/launcher.h"
#include "sim/config.h"
#include "sim/server.h"

namespace sb::durability {
namespace {

namespace fs = std::filesystem;
using sb::testing::slurp;
using ::testing::HasSubstr;

// A never-ready server: the shell and a background child in the launched group, both pids
// written to `dir`/pid and `dir`/child. `ignore_term`: both ignore SIGTERM.
std::string never_ready_command(const fs::path& dir, bool ignore_term) {
  return fmt::format("{}sleep 120 & echo $! > {}/child; echo $$ > {}/pid; wait",
                     ignore_term ? "trap '' TERM; " : "", dir.string(), dir.string());
}

TEST(LaunchSignals, StopRequestEndsTheReadinessWaitAndKillsTheGroup) {
  const fs::path dir = fresh_dir("launch_stop");
  std::atomic<bool> stop{false};
  plan::Launcher l(plan::LaunchSpec{.command = never_ready_command(dir, false),
                                    .ready_url = "http://127.0.0.1:1/health",
                                    .ready_timeout_s = 300,
                                    .stop_grace_s = 5},
                   (dir / "launch.log").string(), &stop);
  std::thread ctrl_c([&] {
    wait_until([&] { return read_pid(dir / "pid") && read_pid(dir / "child"); }, 10s);
    stop = true;
  });
  const auto t_stop = std::chrono::steady_clock::now();
  try {
    l.start();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::interrupted);
    EXPECT_THAT(e.what(), HasSubstr("interrupted while waiting for http://127.0.0.1:1/health"));
  }
  ctrl_c.join();
  EXPECT_FALSE(l.running());
  // Not the 300 s ready_timeout: the wait ended on the flag and SIGTERM stopped the group.
  EXPECT_LT(std::chrono::steady_clock::now() - t_stop, 30s);
  ASSERT_TRUE(read_pid(dir / "pid") && read_pid(dir / "child"));
  EXPECT_FALSE(alive(*read_pid(dir / "pid")));
  EXPECT_TRUE(wait_until([&] { return !alive(*read_pid(dir / "child")); }, 5s))
      << "the server's background child survived";
  fs::remove_all(dir);
}

TEST(LaunchSignals, ReadyUrlThatAlreadyAnswersIsRefusedBeforeLaunching) {
  const fs::path dir = fresh_dir("launch_busy");
  sim::Server leftover(plan::sim_config_of(plan::SimTarget{.preset = "instant"}, 0));
  leftover.start();
  const std::string url = leftover.url() + "/health";
  EXPECT_THAT(plan::ready_url_busy(url), HasSubstr("it already answers (HTTP "));
  plan::Launcher l(plan::LaunchSpec{.command = "touch " + (dir / "ran").string() + "; sleep 60",
                                    .ready_url = url},
                   (dir / "launch.log").string());
  try {
    l.start();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_THAT(e.what(), HasSubstr(url + " is in use before the server was launched"));
    EXPECT_THAT(e.what(), HasSubstr("cold start near 0 s"));
  }
  EXPECT_FALSE(l.running());
  EXPECT_FALSE(fs::exists(dir / "ran")) << "the command was launched";
  fs::remove_all(dir);
}

TEST(LaunchSignals, BoundPortIsBusyFreePortIsNot) {
  const uint16_t port = free_port();
  const std::string url = fmt::format("http://127.0.0.1:{}/health", port);
  EXPECT_EQ(plan::ready_url_busy(url), "");
  EXPECT_EQ(plan::ready_url_busy(fmt::format("http://localhost:{}/health?x=1", port)), "");
  // Bound and not yet listening: a server still starting up.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(plan::ready_url_busy(url), fmt::format("port {} is already bound", port));
  ::close(fd);
  EXPECT_EQ(plan::ready_url_busy("not a url"), "");
}

// `servebench run` of a plan whose one provider launches `command`; the run's pid.
pid_t run_launch_plan(const fs::path& dir, const std::string& ready_url, const std::string& command,
                      const std::string& stop_grace) {
  std::ofstream(dir / "plan.yaml") << fmt::format(
      R"(name: launch-signals
providers:
  - id: local
    base_url: {0}
    launch: {{command: "{1}", ready_url: "{0}/health", ready_timeout: 300s, stop_grace: {2}}}
defaults: {{api: tgi}}
stages:
  - {{kind: baseline, concurrency: 1, num_requests: 2}}
)",
      ready_url, command, stop_grace);
  return spawn_servebench({"run", (dir / "plan.yaml").string(), "-o", (dir / "out").string()},
                          dir / "servebench.log");
}

class LaunchCtrlC : public ::testing::TestWithParam<int> {};

TEST_P(LaunchCtrlC, DuringTheReadinessWaitStopsTheServerAndExits130) {
  const fs::path dir = fresh_dir(fmt::format("launch_ctrl_c_{}", GetParam()));
  const std::string base = fmt::format("http://127.0.0.1:{}", free_port());
  const pid_t pid = run_launch_plan(dir, base, never_ready_command(dir, false), "10s");
  ASSERT_TRUE(wait_until([&] { return read_pid(dir / "pid") && read_pid(dir / "child"); }, 30s))
      << slurp(dir / "servebench.log");
  ::kill(pid, GetParam());
  const int code = wait_exit(pid, 20s);  // the 300 s ready_timeout is not waited out
  const std::string log = slurp(dir / "servebench.log");
  EXPECT_EQ(code, 130) << log;
  EXPECT_THAT(log, HasSubstr("launch: interrupted while waiting for " + base + "/health"));
  EXPECT_FALSE(alive(*read_pid(dir / "pid"))) << log;
  EXPECT_TRUE(wait_until([&] { return !alive(*read_pid(dir / "child")); }, 5s)) << log;
  const auto index = nlohmann::json::parse(slurp(dir / "out" / "index.json"));
  ASSERT_EQ(index["runs"].size(), 1u) << index.dump(2);
  EXPECT_EQ(index["runs"][0]["stage"], "launch");
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Signals, LaunchCtrlC, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& info) { return std::string(sigabbrev_np(info.param)); });

TEST(LaunchSignals, SecondCtrlCLeavesNoServerEvenOneThatIgnoresSigterm) {
  const fs::path dir = fresh_dir("launch_second_ctrl_c");
  const std::string base = fmt::format("http://127.0.0.1:{}", free_port());
  // stop_grace 120 s: after the first Ctrl-C servebench waits for a server that ignores SIGTERM.
  const pid_t pid = run_launch_plan(dir, base, never_ready_command(dir, true), "120s");
  ASSERT_TRUE(wait_until([&] { return read_pid(dir / "pid") && read_pid(dir / "child"); }, 30s))
      << slurp(dir / "servebench.log");
  ::kill(pid, SIGINT);
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(alive(*read_pid(dir / "pid"))) << "the server should still ignore SIGTERM";
  ::kill(pid, SIGINT);
  const int code = wait_exit(pid, 10s);
  const std::string log = slurp(dir / "servebench.log");
  EXPECT_EQ(code, 130) << log;
  EXPECT_THAT(log, HasSubstr("second interrupt, exiting now"));
  EXPECT_TRUE(wait_until([&] { return !alive(*read_pid(dir / "pid")); }, 5s)) << log;
  EXPECT_TRUE(wait_until([&] { return !alive(*read_pid(dir / "child")); }, 5s)) << log;
  fs::remove_all(dir);
}

TEST(LaunchSignals, CtrlCDuringTheBenchmarkStopsTheLaunchedServerToo) {
  const fs::path dir = fresh_dir("launch_ctrl_c_bench");
  const uint16_t port = free_port();
  const std::string base = fmt::format("http://127.0.0.1:{}", port);
  std::ofstream(dir / "plan.yaml") << fmt::format(
      R"(name: launch-bench
providers:
  - id: local
    base_url: {0}
    launch: {{command: "echo $$ > {2}/pid; exec {1} sim --preset instant --port {3}", ready_url: "{0}/health", ready_timeout: 60s, stop_grace: 10s}}
defaults: {{api: tgi}}
stages:
  - {{kind: baseline, concurrency: 2, num_requests: 100000}}
)",
      base, SERVEBENCH_BINARY, dir.string(), port);
  const pid_t pid = spawn_servebench(
      {"run", (dir / "plan.yaml").string(), "-o", (dir / "out").string()}, dir / "servebench.log");
  // Ready, and requests on disk: the benchmark is running against the launched server.
  ASSERT_TRUE(wait_until(
      [&] {
        std::error_code ec;  // the folder appears once the plan starts
        for (auto it = fs::recursive_directory_iterator(dir / "out", ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
          if (it->path().filename() == "requests.jsonl" && fs::file_size(it->path(), ec) > 0)
            return true;
        return false;
      },
      60s))
      << slurp(dir / "servebench.log");
  ::kill(pid, SIGINT);
  const int code = wait_exit(pid, 60s);
  const std::string log = slurp(dir / "servebench.log");
  EXPECT_EQ(code, 130) << log;
  ASSERT_TRUE(read_pid(dir / "pid"));
  EXPECT_FALSE(alive(*read_pid(dir / "pid"))) << log;
  EXPECT_EQ(plan::http_get_status(base + "/health", 0.5), 0) << "the server still answers";
  fs::remove_all(dir);
}

TEST(LaunchSignals, RunRefusesABusyReadyUrlWithExitTwo) {
  const fs::path dir = fresh_dir("launch_busy_run");
  sim::Server leftover(plan::sim_config_of(plan::SimTarget{.preset = "instant"}, 0));
  leftover.start();
  const pid_t pid =
      run_launch_plan(dir, leftover.url(), "touch " + (dir / "ran").string() + "; sleep 60", "1s");
  const int code = wait_exit(pid, 60s);
  const std::string log = slurp(dir / "servebench.log");
  EXPECT_EQ(code, 2) << log;
  EXPECT_THAT(log, HasSubstr("launch: " + leftover.url() +
                             "/health is in use before the server was launched"));
  EXPECT_FALSE(fs::exists(dir / "ran")) << "the command was launched";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::durability
