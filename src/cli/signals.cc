#include "cli/signals.h"

#include <csignal>
#include <unistd.h>

namespace sb::cli {
namespace {

// Signal handlers can only reach static storage; this is the one process-wide flag.
std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int sig) {
  if (g_stop.exchange(true) && sig == SIGINT) {
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
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return g_stop;
}

}  // namespace sb::cli
