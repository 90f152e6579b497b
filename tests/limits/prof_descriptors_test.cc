// The run as a user meets it: `prof --sim instant --concurrency 600 -n 1200` under the
// common `ulimit -Sn 1024`. With the hard limit left as it is, servebench raises the soft limit
// and every request succeeds; with the hard limit at 1024 too it refuses before sending (exit
// 2, the number needed, the limit and the fixes) instead of failing part of the run.
#include <sys/resource.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "limits_support.h"

namespace fs = std::filesystem;

namespace sb::limits_test {
namespace {

const std::string kRun = std::string(SERVEBENCH_BINARY) +
                         " prof --sim instant --api tgi --concurrency 600 -n 1200 "
                         "--input-length 16 --output-length 4 --no-progress -q -o ";

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("sb-limits-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

size_t count_lines_with(const fs::path& file, const std::string& needle) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

TEST(ProfDescriptors, SoftLimit1024IsRaisedAndEveryRequestSucceeds) {
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 1600)
    GTEST_SKIP() << "the hard limit " << lim.rlim_max << " cannot hold 600 connections twice";
  const fs::path dir = fresh_dir("soft");
  const ShellResult r = run_bash("ulimit -Sn 1024; exec " + kRun + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(count_lines_with(dir / "requests.jsonl", "\"ok\":true"), 1200u) << r.out;
  EXPECT_EQ(count_lines_with(dir / "requests.jsonl", "\"ok\":false"), 0u) << r.out;
  EXPECT_EQ(r.out.find("Too many open files"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(ProfDescriptors, HardLimit1024RefusesBeforeSending) {
  const fs::path dir = fresh_dir("hard");
  const ShellResult r = run_bash("ulimit -Hn 1024 -Sn 1024; exec " + kRun + dir.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no request was sent"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--concurrency 600 needs about"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the limit is 1024 (hard limit 1024)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ulimit -n "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lower --concurrency to "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run the simulator as its own process"), std::string::npos) << r.out;
  // Nothing was sent: no request record at all.
  EXPECT_EQ(count_lines_with(dir / "requests.jsonl", "\"id\""), 0u);
  fs::remove_all(dir);
}

TEST(ProfDescriptors, AConcurrencyThatFitsRunsUnderHardLimit1024) {
  const fs::path dir = fresh_dir("fits");
  const ShellResult r = run_bash(
      "ulimit -Hn 1024 -Sn 1024; exec " + std::string(SERVEBENCH_BINARY) +
      " prof --sim instant --api tgi --concurrency 400 -n 800 --input-length 16 --output-length 4 "
      "--no-progress -q -o " +
      dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(count_lines_with(dir / "requests.jsonl", "\"ok\":true"), 800u) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::limits_test
