#include "plan/launcher.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "net/url.h"

namespace sb::plan {
namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

// Waits for fd to become ready for `events` until `deadline`.
bool wait_fd(int fd, short events, SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(left.count())) == 1;
}

}  // namespace

int http_get_status(const std::string& url_text, double timeout_s) {
  net::Url url;
  try {
    url = net::parse_url(url_text);
  } catch (const Error&) {
    return 0;
  }
  const auto deadline = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                                 std::chrono::duration<double>(timeout_s));
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(url.host.c_str(), std::to_string(url.port).c_str(), &hints, &res) != 0) return 0;
  int status = 0;
  for (addrinfo* a = res; a && status == 0; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    bool ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS;
    if (ok && wait_fd(fd, POLLOUT, deadline)) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      ok = err == 0;
    } else {
      ok = false;
    }
    if (ok) {
      const std::string path = url.path_prefix.empty() ? "/" : url.path_prefix;
      const std::string req = fmt::format(
          "GET {} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n\r\n", path, url.host_header());
      ok = ::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size());
    }
    std::string head;
    while (ok && head.find("\r\n") == std::string::npos && head.size() < 4096 &&
           wait_fd(fd, POLLIN, deadline)) {
      char buf[512];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      head.append(buf, static_cast<size_t>(n));
    }
    // "HTTP/1.x NNN ..."
    if (head.rfind("HTTP/", 0) == 0) {
      const auto sp = head.find(' ');
      if (sp != std::string::npos && head.size() >= sp + 4)
        status = std::atoi(head.c_str() + sp + 1);
    }
    ::close(fd);
  }
  freeaddrinfo(res);
  return status;
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
