#pragma once
// The one place timing tests widen their bounds (issue 14): a bound is stated for an idle
// machine in a plain build, then multiplied by slack(). Tests that need it are labelled
// `timing` in CTest and run one at a time (CMakeLists.txt), so they never share the two cores
// of a CI runner with each other.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace sb::testing {

// Whether this is the ASan+UBSan pass (`make test-asan` sets SERVEBENCH_SANITIZED=1).
inline bool sanitized() {
  const char* s = std::getenv("SERVEBENCH_SANITIZED");
  return s && std::string(s) == "1";
}

// 4 under sanitizers (the client runs several times slower), else 1.
inline double sanitizer_slack() { return sanitized() ? 4.0 : 1.0; }

// sanitizer_slack() x max(1, 1-minute load average / cores), the load part capped at 8:
// scheduling delays grow with the run queue of a shared machine.
inline double slack() {
  double load = 1;
  if (std::ifstream in("/proc/loadavg"); in) {
    double l1 = 0;
    in >> l1;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    load = std::clamp(l1 / cores, 1.0, 8.0);
  }
  return load * sanitizer_slack();
}

}  // namespace sb::testing
