// issue 20: telemetry.jsonl is streamed as sampled, so a run killed with SIGKILL keeps every
// sample up to its last interval (before, the samples lived in memory until the end).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern char** environ;

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The complete lines of `path` (a line cut by the kill has no '\n' and is not counted).
std::vector<std::string> complete_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  for (size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  return out;
}

pid_t spawn_quiet(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

TEST(TelemetryKill, SigkillMidRunKeepsEverySampledLine) {
  const fs::path dir =
      fs::temp_directory_path() / ("sb_telemetry_kill_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path jsonl = dir / "telemetry.jsonl";
  const pid_t pid =
      spawn_quiet({SERVEBENCH_BINARY, "prof", "--sim", "instant", "--concurrency", "1",
                   "--duration", "600s", "--telemetry-interval", "50", "--gpu-telemetry", "off",
                   "--no-progress", "-q", "-o", dir.string()});
  ASSERT_GT(pid, 0);
  // Real time only bounds the wait (a loaded machine is slow): 40 host lines = 20 ticks.
  constexpr size_t kWant = 40;
  const auto until = std::chrono::steady_clock::now() + 120s;
  size_t host = 0;
  while (std::chrono::steady_clock::now() < until) {
    host = 0;
    for (const auto& l : complete_lines(jsonl)) host += l.find("\"source\":\"host\"") != l.npos;
    if (host >= kWant) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_FALSE(fs::exists(dir / "summary.json"));  // killed mid-run, before the end
  const auto lines = complete_lines(jsonl);
  ASSERT_GE(host, kWant);
  ASSERT_GE(lines.size(), kWant);
  size_t host_after = 0, server = 0;
  for (const auto& l : lines) {
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(l)) << l;
    ASSERT_TRUE(j.contains("t_s") && j.contains("key") && j.contains("value")) << l;
    host_after += j["source"] == "host";
    server += j["source"] == "server";
  }
  EXPECT_GE(host_after, host);  // nothing on disk was lost by the kill
  EXPECT_GT(server, 0u);        // the simulator's /metrics, scraped and streamed too
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::telemetry
