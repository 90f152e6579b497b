// A closed terminal (SIGHUP) stops a run like SIGTERM: it stops issuing, writes its results
// from what completed and exits 130.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/text_file.h"
#include "child_process.h"

namespace sb::durability {
namespace {

namespace fs = std::filesystem;
using sb::testing::slurp;

size_t line_count(const fs::path& p) {
  std::ifstream in(p);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

TEST(Sighup, StopsTheRunWritesTheSummaryAndExits130) {
  const fs::path dir = fresh_dir("sighup");
  const pid_t pid =
      spawn_servebench({"prof", "--sim", "instant", "--api", "tgi", "-n", "100000", "--concurrency",
                        "4", "--no-progress", "-q", "-o", (dir / "run").string()},
                       dir / "servebench.log");
  // Some requests are on disk (the log flushes every second).
  ASSERT_TRUE(wait_until([&] { return line_count(dir / "run" / "requests.jsonl") > 0; }, 60s))
      << slurp(dir / "servebench.log");
  ::kill(pid, SIGHUP);
  const int code = wait_exit(pid, 60s);
  EXPECT_EQ(code, 130) << slurp(dir / "servebench.log");
  const auto s = nlohmann::json::parse(slurp(dir / "run" / "summary.json"));
  EXPECT_EQ(s["run"]["interrupted"], true);
  const size_t lines = line_count(dir / "run" / "requests.jsonl");
  EXPECT_GT(lines, 0u);
  EXPECT_LT(lines, 100000u) << "it should have stopped issuing";
  EXPECT_EQ(s["run"]["requests"]["total"].get<size_t>(), lines);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::durability
