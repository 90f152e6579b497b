#pragma once
// CPU and resident memory of a process (the client itself, or --server-pid) from /proc.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/time_source.h"

namespace sb::telemetry {

struct ProcTimes {
  double cpu_s = 0;  // user + system CPU time so far
  double rss_bytes = 0;
  TimePoint at;  // on the clock the reading was taken with
};

// pid 0: this process (CPU time from CLOCK_PROCESS_CPUTIME_ID, ns), stamped with `clock`;
// another pid: CPU time in /proc's clock ticks (10 ms at USER_HZ 100). nullopt when the process is
// gone or /proc is unreadable.
std::optional<ProcTimes> read_proc(pid_t pid, const TimeSource& clock = steady_time_source());
// Parses /proc/PID/stat text (fields after the command's closing parenthesis); CPU seconds.
std::optional<double> cpu_seconds_from_stat(const std::string& stat_text, long ticks_per_s);

// CPU use between two readings, in % of one core (200 = two cores busy).
double cpu_percent(const ProcTimes& before, const ProcTimes& after);

// CPU% readings from successive ProcTimes of one process, each over a window of at least
// `min_window_s`. Over a shorter one a single 10 ms tick reads as hundreds of percent (a
// 24-request run read "948% of a core" from the sample taken microseconds after the sampler
// started): a short window yields nothing and grows into the next.
class CpuWindow {
 public:
  explicit CpuWindow(double min_window_s) : min_window_s_(min_window_s) {}
  // The CPU% since the window's start when it spans min_window_s (the next window starts
  // here), else nullopt. The first reading only starts a window.
  std::optional<double> add(const ProcTimes& now);

 private:
  double min_window_s_;
  std::optional<ProcTimes> start_;
};

}  // namespace sb::telemetry
