// CPU and memory readings of a process: the /proc/PID/stat parser, this process's CPU time at
// ns precision (a 10 ms tick over a short window read as 948% of a core), and CpuWindow, which
// yields CPU% only over windows of at least 100 ms.
#include "telemetry/host_stats.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sb::telemetry {
namespace {

ProcTimes at(double t_s, double cpu_s) {
  ProcTimes p;
  p.at = TimePoint{} + std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(t_s));
  p.cpu_s = cpu_s;
  return p;
}

TEST(ProcStat, ParsesUserAndSystemTimeAfterTheCommandName) {
  // utime 250 and stime 50 ticks; the command name holds spaces and a parenthesis.
  const std::string stat =
      "1234 (a (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1 1 1";
  const auto s = cpu_seconds_from_stat(stat, 100);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(*s, 3.0);
  EXPECT_FALSE(cpu_seconds_from_stat("1234 (x) S 1 2", 100));
  EXPECT_FALSE(cpu_seconds_from_stat("no parenthesis", 100));
  EXPECT_FALSE(cpu_seconds_from_stat(stat, 0));
}

TEST(ProcStat, ThisProcessCpuTimeIsFinerThanATick) {
  const auto a = read_proc(0);
  ASSERT_TRUE(a);
  // Spin about 3 ms: at tick precision the difference would be 0 or 10 ms.
  const auto start = std::chrono::steady_clock::now();
  volatile double x = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(3)) x = x + 1;
  const auto b = read_proc(0);
  ASSERT_TRUE(b);
  const double cpu = b->cpu_s - a->cpu_s;
  const double wall = to_s(b->at - a->at);
  EXPECT_GT(cpu, 0.0);
  EXPECT_LE(cpu, wall + 1e-4) << "one thread cannot use more CPU than wall time";
  EXPECT_GT(b->rss_bytes, 0.0);
}

TEST(CpuWindow, YieldsOnlyOverWindowsOfAtLeast100Ms) {
  CpuWindow w(0.1);
  EXPECT_FALSE(w.add(at(0.0, 1.0)));     // starts the window
  EXPECT_FALSE(w.add(at(0.001, 1.01)));  // one tick in 1 ms: 1000%, not reported
  const auto r = w.add(at(0.2, 1.1));    // 0.1 s of CPU over 0.2 s
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 50.0, 1e-9);
  EXPECT_FALSE(w.add(at(0.25, 1.15)));  // the next window starts at 0.2
  const auto r2 = w.add(at(0.3, 1.3));  // 0.2 s of CPU over 0.1 s: two cores
  ASSERT_TRUE(r2);
  EXPECT_NEAR(*r2, 200.0, 1e-9);
}

}  // namespace
}  // namespace sb::telemetry
