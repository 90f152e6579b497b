#include "plan/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "net/http_fetch.h"

namespace sb::plan {
namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

}  // namespace

int http_get_status(const std::string& url, double timeout_s) {
  net::HttpFetchOptions o;
  o.timeout = std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(timeout_s));
  o.accept = "*/*";
  return net::http_fetch(url, o).status;
}

Launcher::Launcher(LaunchSpec spec, std::string log_path)
    : spec_(std::move(spec)), log_path_(std::move(log_path)) {}

Launcher::~Launcher() {
  stop();
}

double Launcher::start() {
  const auto t0 = SteadyClock::now();
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t pid = ::fork();
  if (pid < 0) {
    if (log_fd >= 0) ::close(log_fd);
    throw Error(fmt::format("launch: cannot fork: {}", std::strerror(errno)),
                ExitCode::unreachable);
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (log_fd >= 0) {
      ::dup2(log_fd, 1);
      ::dup2(log_fd, 2);
    }
    ::execl("/bin/sh", "sh", "-c", spec_.command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent: no race with the signal in stop()
  if (log_fd >= 0) ::close(log_fd);
  pid_ = pid;
  for (;;) {
    int wstatus = 0;
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
      pid_ = -1;
      const std::string how = WIFEXITED(wstatus)
                                  ? fmt::format("exited with status {}", WEXITSTATUS(wstatus))
                                  : fmt::format("was killed by signal {}", WTERMSIG(wstatus));
      throw Error(fmt::format("launch: the command {} before {} was ready (its output: {})", how,
                              spec_.ready_url, log_path_),
                  ExitCode::unreachable);
    }
    const int status = http_get_status(spec_.ready_url, 1.0);
    if (status >= 200 && status < 300) return seconds_since(t0);
    if (seconds_since(t0) >= spec_.ready_timeout_s) {
      stop();
      throw Error(
          fmt::format("launch: {} did not answer 2xx within ready_timeout {}s (last: {}); "
                      "the server was stopped (its output: {})",
                      spec_.ready_url, spec_.ready_timeout_s,
                      status == 0 ? std::string("no answer") : fmt::format("HTTP {}", status),
                      log_path_),
          ExitCode::unreachable);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Launcher::stop() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGTERM);
  const auto t0 = SteadyClock::now();
  int wstatus = 0;
  while (::waitpid(pid_, &wstatus, WNOHANG) == 0) {
    if (seconds_since(t0) >= spec_.stop_grace_s) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &wstatus, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);  // anything left in the group
  pid_ = -1;
}

}  // namespace sb::plan
