#pragma once
// Helpers for the telemetry tests: free loopback ports, child processes (Debian's
// prometheus and prometheus-node-exporter), waiting for a URL.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "net/http_fetch.h"

extern char** environ;

namespace sb::telemetry::testing {

inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

inline std::string find_binary(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates)
    if (access(c.c_str(), X_OK) == 0) return c;
  return "";
}

// A child process killed (SIGTERM, then waited) at scope end.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st = 0;
      waitpid(pid_, &st, 0);
    }
  }
  bool ok() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

// Waits until GET url answers 2xx; the last result.
inline net::HttpFetchResult wait_for(const std::string& url, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  net::HttpFetchResult r;
  while (std::chrono::steady_clock::now() < end) {
    net::HttpFetchOptions o;
    o.timeout = std::chrono::seconds(2);
    r = net::http_fetch(url, o);
    if (r.ok) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

}  // namespace sb::telemetry::testing
