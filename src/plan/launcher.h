#pragma once
// providers.yaml `launch:`: starts a server with /bin/sh -c COMMAND in its own process group,
// waits until ready_url answers HTTP 2xx (cold start = spawn until then), and stops it:
// SIGTERM to the group, then SIGKILL after stop_grace. The child's output goes to `log_path`.
//
// Ctrl-C: a stop request (SIGINT/SIGTERM/SIGHUP, cli/signals.h) during the readiness wait ends
// the wait within one probe (at most ~1 s), stops the server as stop() does and throws
// sb::Error(interrupted). While the server may be alive its process group is registered
// (common/stop_request.h), so the immediate exit of a second Ctrl-C kills it too.
#include <sys/types.h>

#include <atomic>
#include <string>

#include "common/stop_request.h"
#include "plan/providers.h"

namespace sb::plan {

class Launcher {
 public:
  // `stop`: polled during the readiness wait; the process's signal flag unless a test's.
  Launcher(LaunchSpec spec, std::string log_path,
           const std::atomic<bool>* stop = &process_stop_flag());
  ~Launcher();  // stops the server if still running
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Refuses with sb::Error(usage) before spawning when ready_url is already in use
  // (ready_url_busy). Then spawns and waits for readiness; returns the cold start in seconds.
  // Throws sb::Error(unreachable) when the command exits first or ready_timeout passes (the
  // message names the command's exit status or the timeout and the log file), and
  // sb::Error(interrupted) on a stop request (the server is stopped first).
  double start();
  // Idempotent.
  void stop();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }  // the process group; -1 when not running

 private:
  void spawn();
  // The exit of the command if it has ended (it is reaped): "exited with status N" or
  // "was killed by signal N"; empty while it runs.
  std::string reap_if_exited();
  bool stop_requested() const { return stop_ && stop_->load(); }

  LaunchSpec spec_;
  std::string log_path_;
  const std::atomic<bool>* stop_;
  pid_t pid_ = -1;
};

// One GET (net/http_fetch.h) with a whole-request timeout: the response's status code, or 0
// when no answer (a bad URL, refused, timeout, not HTTP).
int http_get_status(const std::string& url, double timeout_s);

// Why `ready_url` is already in use before anything is launched, or "" when it is free: it
// answers HTTP (any status), or its port is bound on a local address of its host (a listener,
// or a server still starting). A leftover server there would be benchmarked instead of the
// launched one, with a cold start near 0 s. A host that is not local is checked by the GET
// only; a URL that does not parse is not refused here (the wait reports it).
std::string ready_url_busy(const std::string& ready_url);

}  // namespace sb::plan
