// `servebench sim`'s limit flags as a user meets them: on a non-loopback bind x-sim-fault
// headers are ignored (and said so) unless --allow-fault-headers; bad values exit 2 naming
// the flag.
#include <filesystem>

#include <gtest/gtest.h>

#include "../sim/http_client.h"
#include "limits_support.h"

namespace fs = std::filesystem;

namespace sb::limits_test {
namespace {

constexpr const char* kGenerate = R"({"inputs":"hello","parameters":{"max_new_tokens":2}})";

std::string err_file(const std::string& name) {
  return (fs::temp_directory_path() / ("sb-simcli-" + name + std::to_string(getpid()) + ".err"))
      .string();
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

int faulted_status(uint16_t port) {
  sim::testing::Conn c(port, 10000);
  c.send("POST", "/generate", kGenerate, "x-sim-fault: status=503\r\n");
  return c.read().status;
}

TEST(SimCliLimits, AWildcardBindIgnoresFaultHeadersAndSaysSo) {
  const std::string err = err_file("wild");
  {
    SimChild sim({"--preset", "instant", "--host", "0.0.0.0", "--port", "0"}, 0, err);
    ASSERT_GT(sim.port(), 0) << slurp(err);
    EXPECT_EQ(faulted_status(sim.port()), 200);
    EXPECT_EQ(faulted_status(sim.port()), 200);
  }
  const std::string text = slurp(err);
  EXPECT_NE(text.find("x-sim-fault headers ignored"), std::string::npos) << text;
  const std::string said = "ignoring x-sim-fault headers";
  const size_t first = text.find(said);
  EXPECT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(said, first + 1), std::string::npos) << "said once:\n" << text;
  fs::remove(err);
}

TEST(SimCliLimits, AllowFaultHeadersHonoursThemOnAWildcardBind) {
  const std::string err = err_file("allow");
  SimChild sim({"--preset", "instant", "--host", "0.0.0.0", "--port", "0", "--allow-fault-headers"},
               0, err);
  ASSERT_GT(sim.port(), 0) << slurp(err);
  EXPECT_EQ(faulted_status(sim.port()), 503);
  fs::remove(err);
}

TEST(SimCliLimits, NoFaultHeadersIgnoresThemOnLoopback) {
  const std::string err = err_file("deny");
  SimChild sim({"--preset", "instant", "--port", "0", "--no-fault-headers"}, 0, err);
  ASSERT_GT(sim.port(), 0) << slurp(err);
  EXPECT_EQ(faulted_status(sim.port()), 200);
  fs::remove(err);
}

// The server closes idle keep-alive connections between an open loop's sends: the client
// retries such a request on a fresh connection, so none fails.
TEST(SimCliLimits, AShortIdleTimeoutCostsAClientNoRequest) {
  const std::string err = err_file("idle");
  SimChild sim({"--preset", "instant", "--port", "0", "--idle-timeout-s", "0.1"}, 0, err);
  ASSERT_GT(sim.port(), 0) << slurp(err);
  const fs::path dir =
      fs::temp_directory_path() / ("sb-simcli-idle-run-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const ShellResult r = run_bash(std::string(SERVEBENCH_BINARY) + " prof --base-url " + sim.url() +
                                 " --api tgi --request-rate 4 --arrival constant -n 6 "
                                 "--output-length 2 --no-progress -q -o " +
                                 dir.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(occurrences(slurp((dir / "requests.jsonl").string()), "\"ok\":true"), 6u) << r.out;
  // ... and the server did close idle connections meanwhile.
  sim::testing::Conn c(sim.port(), 10000);
  c.send("GET", "/metrics");
  const std::string m = c.read().body;
  const std::string sample = "\nservebench_sim_connections_timed_out_total{reason=\"idle\"} ";
  const size_t at = m.find(sample);
  ASSERT_NE(at, std::string::npos) << m;
  EXPECT_GE(std::stoi(m.substr(at + sample.size())), 1) << m;
  fs::remove_all(dir);
  fs::remove(err);
}

TEST(SimCliLimits, BadValuesExitTwoNamingTheFlag) {
  struct Case {
    const char* args;
    const char* mentions;
  };
  for (const Case& c : {Case{"--idle-timeout-s -1", "--idle-timeout-s"},
                        Case{"--read-timeout-s 1e9", "--read-timeout-s"},
                        Case{"--max-connections -5", "--max-connections"},
                        Case{"--max-fault-delay-ms -1", "--max-fault-delay-ms"},
                        Case{"--allow-fault-headers --no-fault-headers", "--no-fault-headers"}}) {
    const ShellResult r = run_bash("timeout 20 " + std::string(SERVEBENCH_BINARY) +
                                   " sim --preset instant --port 0 " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.mentions), std::string::npos) << c.args << "\n" << r.out;
  }
}

}  // namespace
}  // namespace sb::limits_test
