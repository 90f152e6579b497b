#pragma once
// Helpers for the durability tests: the servebench binary as a child process that the test
// signals, whether a process is still alive, a free loopback port.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sb::durability {

using namespace std::chrono_literals;

// Alive: it exists and is not a zombie (a killed grandchild may wait for a reaper that never
// comes in a container).
inline bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// Polls `ready` every 20 ms until it holds or `limit` passes; whether it held.
template <class F>
bool wait_until(F ready, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// The pid a launched command wrote to `file` (`echo $$ > file`), once the line is complete.
inline std::optional<pid_t> read_pid(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line) || line.empty() || in.eof()) return std::nullopt;
  return static_cast<pid_t>(std::stol(line));
}

inline uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// `servebench ARGS...` with stdout and stderr into `log`; its pid.
inline pid_t spawn_servebench(const std::vector<std::string>& args,
                              const std::filesystem::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(SERVEBENCH_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(SERVEBENCH_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for `pid` up to `limit`; its exit status (128 + N for signal N), or -1 when it still
// runs (it is then SIGKILLed and reaped, so no test leaves it behind).
inline int wait_exit(pid_t pid, std::chrono::milliseconds limit) {
  int status = 0;
  const bool ended = wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, limit);
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() /
                 ("sb_durability_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace sb::durability
