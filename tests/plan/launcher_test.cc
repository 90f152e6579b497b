// providers.yaml `launch:`: a command that fails, one that never becomes ready.
#include <chrono>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "plan/launcher.h"

namespace sb::plan {
namespace {

using ::testing::HasSubstr;

TEST(Launcher, CommandThatExitsBeforeReadyIsAClearError) {
  Launcher l(LaunchSpec{.command = "echo boom; exit 7",
                        .ready_url = "http://127.0.0.1:1/health",
                        .ready_timeout_s = 10},
             "/tmp/sb_launcher_test_fail.log");
  try {
    l.start();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    EXPECT_THAT(
        e.what(),
        HasSubstr("the command exited with status 7 before http://127.0.0.1:1/health was ready"));
    EXPECT_THAT(e.what(), HasSubstr("/tmp/sb_launcher_test_fail.log"));
  }
  EXPECT_FALSE(l.running());
}

TEST(Launcher, NeverReadyTimesOutAndStopsTheServer) {
  const auto t0 = std::chrono::steady_clock::now();
  Launcher l(LaunchSpec{.command = "sleep 30",
                        .ready_url = "http://127.0.0.1:1/health",
                        .ready_timeout_s = 0.5,
                        .stop_grace_s = 1},
             "/tmp/sb_launcher_test_slow.log");
  try {
    l.start();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    EXPECT_THAT(e.what(),
                HasSubstr("did not answer 2xx within ready_timeout 0.5s (last: no answer)"));
  }
  EXPECT_FALSE(l.running());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));  // SIGTERM ended it
}

TEST(Launcher, HttpGetStatusOfNothingIsZero) {
  EXPECT_EQ(http_get_status("http://127.0.0.1:1/health", 0.5), 0);
  EXPECT_EQ(http_get_status("not a url", 0.5), 0);
}

}  // namespace
}  // namespace sb::plan
