#pragma once
// providers.yaml `launch:`: starts a server with /bin/sh -c COMMAND in its own process group,
// waits until ready_url answers HTTP 2xx (cold start = spawn until then), and stops it:
// SIGTERM to the group, then SIGKILL after stop_grace. The child's output goes to `log_path`.
#include <sys/types.h>
#include <string>

#include "plan/providers.h"

namespace sb::plan {

class Launcher {
 public:
  Launcher(LaunchSpec spec, std::string log_path);
  ~Launcher();  // stops the server if still running
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Spawns and waits for readiness; returns the cold start in seconds. Throws
  // sb::Error(unreachable) when the command exits first or ready_timeout passes (the
  // message names the command's exit status or the timeout and the log file).
  double start();
  // Idempotent.
  void stop();
  bool running() const { return pid_ > 0; }

 private:
  LaunchSpec spec_;
  std::string log_path_;
  pid_t pid_ = -1;
};

// One GET (net/http_fetch.h) with a whole-request timeout: the response's status code, or 0
// when no answer (a bad URL, refused, timeout, not HTTP).
int http_get_status(const std::string& url, double timeout_s);

}  // namespace sb::plan
