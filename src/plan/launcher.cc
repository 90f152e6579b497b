#include "plan/launcher.h"

#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "net/http_fetch.h"
#include "net/url.h"
#include "results/output_file.h"

namespace sb::plan {
namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

// Whether binding host:port fails with EADDRINUSE on an address of `host` (SO_REUSEADDR, so
// the TIME_WAIT of a server stopped a moment ago does not count). Not a local address: false.
bool port_bound(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  bool bound = false;
  for (const addrinfo* a = found; a && !bound; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    bound = ::bind(fd, a->ai_addr, a->ai_addrlen) != 0 && errno == EADDRINUSE;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return bound;
}

}  // namespace

int http_get_status(const std::string& url, double timeout_s) {
  net::HttpFetchOptions o;
  o.timeout = std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(timeout_s));
  o.accept = "*/*";
  return net::http_fetch(url, o).status;
}

std::string ready_url_busy(const std::string& ready_url) {
  if (const int status = http_get_status(ready_url, 1.0); status != 0)
    return fmt::format("it already answers (HTTP {})", status);
  net::Url u;
  try {
    u = net::parse_url(ready_url.substr(0, ready_url.find_first_of("?#")));
  } catch (const Error&) {
    return "";
  }
  if (port_bound(u.host, u.port)) return fmt::format("port {} is already bound", u.port);
  return "";
}

Launcher::Launcher(LaunchSpec spec, std::string log_path, const std::atomic<bool>* stop)
    : spec_(std::move(spec)), log_path_(std::move(log_path)), stop_(stop) {}

Launcher::~Launcher() {
  stop();
}

void Launcher::spawn() {
  // The log can hold the server's key (its output, its errors): 0600, never through a link
  // (results/output_file.h); a plan rerun with --overwrite replaces it.
  const int log_fd = results::open_output_file(log_path_, /*overwrite=*/true, 0600);
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
  register_child_group(pid);
  if (log_fd >= 0) ::close(log_fd);
  pid_ = pid;
}

std::string Launcher::reap_if_exited() {
  int wstatus = 0;
  if (pid_ <= 0 || ::waitpid(pid_, &wstatus, WNOHANG) != pid_) return "";
  ::kill(-pid_, SIGKILL);  // anything the command left in its group
  unregister_child_group(pid_);
  pid_ = -1;
  return WIFEXITED(wstatus) ? fmt::format("exited with status {}", WEXITSTATUS(wstatus))
                            : fmt::format("was killed by signal {}", WTERMSIG(wstatus));
}

double Launcher::start() {
  if (const std::string busy = ready_url_busy(spec_.ready_url); !busy.empty())
    throw usage_error(fmt::format(
        "launch: {} is in use before the server was launched: {}. A server left running (by an "
        "earlier run?) would be benchmarked instead, with a cold start near 0 s; stop it, or "
        "give launch: a free port and a ready_url on it",
        spec_.ready_url, busy));
  const auto t0 = SteadyClock::now();
  spawn();
  for (;;) {
    if (const std::string how = reap_if_exited(); !how.empty())
      throw Error(fmt::format("launch: the command {} before {} was ready (its output: {})", how,
                              spec_.ready_url, log_path_),
                  ExitCode::unreachable);
    const int status = stop_requested() ? 0 : http_get_status(spec_.ready_url, 1.0);
    if (status >= 200 && status < 300) return seconds_since(t0);
    if (stop_requested()) {
      stop();
      throw Error(fmt::format("launch: interrupted while waiting for {}; the server was stopped",
                              spec_.ready_url),
                  ExitCode::interrupted);
    }
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
    for (int i = 0; i < 5 && !stop_requested(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
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
  unregister_child_group(pid_);
  pid_ = -1;
}

}  // namespace sb::plan
