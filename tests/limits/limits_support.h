#pragma once
// What the descriptor and simulator-limit tests share: running a shell command line (bash, so
// `ulimit -Sn/-Hn` work) with its output and exit code, a `servebench sim` child under a
// descriptor limit, the CPU time of a process, and a loopback TCP client socket.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sb::limits_test {

struct ShellResult {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// Runs `script` with bash -c (single quotes inside must be escaped by the caller).
inline ShellResult run_bash(const std::string& script) {
  const std::string cmd = "bash -c '" + script + "' 2>&1";
  ShellResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// utime + stime of process `pid` in seconds (/proc/PID/stat), or -1.
inline double process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = all.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(all.substr(paren + 2));
  std::string field;
  // Fields after the command: state(3) ... utime(14) stime(15).
  for (int i = 3; i < 14; ++i) rest >> field;
  long utime = 0, stime = 0;
  rest >> utime >> stime;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds of this whole process (every thread).
inline double self_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// A TCP socket not yet connected (created while descriptors are still free).
inline int new_socket() {
  return ::socket(AF_INET, SOCK_STREAM, 0);
}
// Connects `fd` to 127.0.0.1:port; true on success (the backlog takes it before any accept).
inline bool connect_loopback(int fd, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
}

// Descriptors this process holds now.
inline int open_descriptors() {
  int n = 0;
  for (int fd = 0; fd < 65536; ++fd)
    if (fcntl(fd, F_GETFD) != -1) ++n;
  return n;
}

// `servebench sim ARGS...` as a child process with RLIMIT_NOFILE set to `nofile` (soft and
// hard; 0: inherited), its stderr to `stderr_path`; its URL read from its first stdout line.
// Killed (SIGTERM, then waited for) on destruction.
class SimChild {
 public:
  SimChild(std::vector<std::string> args, rlim_t nofile, const std::string& stderr_path) {
    // Everything the child needs is built before fork (no allocation after it).
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(SERVEBENCH_BINARY));
    argv.push_back(const_cast<char*>("sim"));
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out_pipe[2];
    if (pipe(out_pipe) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      if (nofile > 0) {
        const rlimit lim{nofile, nofile};
        setrlimit(RLIMIT_NOFILE, &lim);
      }
      dup2(out_pipe[1], STDOUT_FILENO);
      const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) dup2(err, STDERR_FILENO);
      close(out_pipe[0]);
      execv(SERVEBENCH_BINARY, argv.data());
      _exit(127);
    }
    close(out_pipe[1]);
    FILE* in = fdopen(out_pipe[0], "r");
    char line[256] = {};
    if (in && fgets(line, sizeof line, in)) url_ = line;
    while (!url_.empty() && (url_.back() == '\n' || url_.back() == '\r')) url_.pop_back();
    if (in) fclose(in);
    const size_t colon = url_.rfind(':');
    if (colon != std::string::npos)
      port_ = static_cast<uint16_t>(std::stoi(url_.substr(colon + 1)));
  }
  ~SimChild() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  SimChild(const SimChild&) = delete;
  SimChild& operator=(const SimChild&) = delete;
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  const std::string& url() const { return url_; }

 private:
  pid_t pid_ = -1;
  std::string url_;
  uint16_t port_ = 0;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace sb::limits_test
