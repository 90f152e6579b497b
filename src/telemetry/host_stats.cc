#include "telemetry/host_stats.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace sb::telemetry {

std::optional<double> cpu_seconds_from_stat(const std::string& s, long ticks_per_s) {
  const auto close = s.rfind(')');
  if (close == std::string::npos || ticks_per_s <= 0) return std::nullopt;
  std::istringstream in(s.substr(close + 1));
  std::string field;
  // After ")": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime(14) stime(15)
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15; ++i) {
    if (!(in >> field)) return std::nullopt;
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(ticks_per_s);
}

std::optional<ProcTimes> read_proc(pid_t pid, const TimeSource& clock) {
  const std::string base = pid == 0 ? "/proc/self" : "/proc/" + std::to_string(pid);
  ProcTimes t;
  t.at = clock.now();
  std::ifstream stat(base + "/stat");
  std::stringstream ss;
  ss << stat.rdbuf();
  if (!stat) return std::nullopt;
  std::optional<double> cpu;
  try {
    cpu = cpu_seconds_from_stat(ss.str(), sysconf(_SC_CLK_TCK));
  } catch (...) {
    return std::nullopt;
  }
  if (!cpu) return std::nullopt;
  t.cpu_s = *cpu;
  // This process: the kernel's own runtime in ns, not /proc's clock ticks (10 ms).
  if (timespec ts{}; pid == 0 && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
    t.cpu_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  std::ifstream statm(base + "/statm");
  double size = 0, resident = 0;
  if (statm >> size >> resident)
    t.rss_bytes = resident * static_cast<double>(sysconf(_SC_PAGESIZE));
  return t;
}

double cpu_percent(const ProcTimes& a, const ProcTimes& b) {
  const double wall = to_s(b.at - a.at);
  return wall > 0 ? (b.cpu_s - a.cpu_s) / wall * 100.0 : 0.0;
}

std::optional<double> CpuWindow::add(const ProcTimes& now) {
  if (!start_) {
    start_ = now;
    return std::nullopt;
  }
  if (to_s(now.at - start_->at) < min_window_s_) return std::nullopt;
  const double pct = cpu_percent(*start_, now);
  start_ = now;
  return pct;
}

}  // namespace sb::telemetry
