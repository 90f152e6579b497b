#include "cli/signals.h"

#include <unistd.h>
#include <csignal>

#include "common/stop_request.h"

namespace sb::cli {
namespace {

extern "C" void on_stop_signal(int sig) {
  if (process_stop_flag().exchange(true) && sig == SIGINT) {
    kill_child_groups();
    static const char msg[] = "\nservebench: second interrupt, exiting now\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(130);
  }
  static const char msg[] =
      "\nservebench: stopping: waiting for in-flight requests (Ctrl-C again to quit now)\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

const std::atomic<bool>& install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return process_stop_flag();
}

}  // namespace sb::cli
