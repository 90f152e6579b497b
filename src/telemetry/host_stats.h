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

// pid 0: this process, stamped with `clock`. nullopt when the process is gone or /proc is
// unreadable.
std::optional<ProcTimes> read_proc(pid_t pid, const TimeSource& clock = steady_time_source());
// Parses /proc/PID/stat text (fields after the command's closing parenthesis); CPU seconds.
std::optional<double> cpu_seconds_from_stat(const std::string& stat_text, long ticks_per_s);

// CPU use between two readings, in % of one core (200 = two cores busy).
double cpu_percent(const ProcTimes& before, const ProcTimes& after);

}  // namespace sb::telemetry
