#pragma once
// Runs the example backends (examples/backends/*.py, real PyTorch on CPU) as users do: start one
// on loopback with --port 0, read its URL from the first stdout line, benchmark it with the
// servebench binary, read its own timing log, stop it with SIGTERM.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"

namespace sb::testing {

namespace fs = std::filesystem;
using nlohmann::json;

// The backends need Debian's python3-torch, -fastapi and -uvicorn, which the system
// interpreter sees (a pyenv `python3` on PATH may not).
inline constexpr const char* kPython = "/usr/bin/python3";

// Empty when /usr/bin/python3 imports torch, fastapi and uvicorn; else why not.
inline const std::string& backend_deps_missing() {
  static const std::string why = [] {
    const std::string cmd = std::string(kPython) + " -c 'import torch, fastapi, uvicorn' 2>&1";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return std::string("cannot run ") + kPython;
    std::array<char, 512> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    const int status = pclose(p);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::string();
    return std::string(kPython) +
           " cannot import torch/fastapi/uvicorn (run `scripts/install-deps.sh " +
           "--backends`): " + out.substr(out.size() > 300 ? out.size() - 300 : 0);
  }();
  return why;
}

#define SKIP_WITHOUT_BACKEND_DEPS()                                         \
  do {                                                                      \
    if (!::sb::testing::backend_deps_missing().empty())                     \
      GTEST_SKIP() << "skipped: " << ::sb::testing::backend_deps_missing(); \
  } while (0)

inline fs::path scratch_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("servebench-backends-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::vector<json> read_jsonl(const fs::path& p) {
  std::vector<json> v;
  std::ifstream in(p);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) v.push_back(json::parse(l));
  return v;
}

// One backend process.
class Backend {
 public:
  // `script` is a file in examples/backends/; `args` come after --port 0 --timing-log.
  Backend(std::string script, std::vector<std::string> args, const fs::path& dir)
      : script_(std::move(script)),
        args_(std::move(args)),
        log_(dir / "server-timing.jsonl"),
        stderr_(dir / "server-stderr.txt") {}
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  ~Backend() {
    if (pid_ > 0) stop();
  }

  // Starts the process and waits (up to `timeout`) for its URL; "" on success, else the reason.
  std::string start(std::chrono::seconds timeout = std::chrono::seconds(120)) {
    int out[2];
    if (pipe(out) != 0) return "pipe failed";
    const std::string path = std::string(SERVEBENCH_SOURCE_DIR) + "/examples/backends/" + script_;
    std::vector<std::string> argv = {kPython,  path, "--host",       "127.0.0.1",
                                     "--port", "0",  "--timing-log", log_.string()};
    argv.insert(argv.end(), args_.begin(), args_.end());
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int err = open(stderr_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) dup2(err, STDERR_FILENO);
      close(out[0]);
      std::vector<char*> cargv;
      for (auto& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv(kPython, cargv.data());
      _exit(127);
    }
    close(out[1]);
    out_fd_ = out[0];
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "no URL on stdout within the timeout; stderr: " + stderr_text();
      pollfd pfd{out_fd_, POLLIN, 0};
      if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[256];
      const ssize_t n = read(out_fd_, buf, sizeof buf);
      if (n <= 0) return "the backend exited before printing its URL; stderr: " + stderr_text();
      line.append(buf, static_cast<size_t>(n));
    }
    url_ = line.substr(0, line.find('\n'));
    if (url_.rfind("http://127.0.0.1:", 0) != 0) return "unexpected first line: " + url_;
    port_ = std::stoi(url_.substr(url_.rfind(':') + 1));
    return "";
  }

  // SIGTERM, then waits up to 30 s: the exit code (0 = clean), or -1 when it had to be killed
  // or died of a signal.
  int stop() {
    if (pid_ <= 0) return exit_code_;
    kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    pid_t r = 0;
    while ((r = waitpid(pid_, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (r == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      exit_code_ = -1;
    } else {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    pid_ = -1;
    if (out_fd_ >= 0) close(out_fd_);
    out_fd_ = -1;
    return exit_code_;
  }

  const std::string& url() const { return url_; }
  int port() const { return port_; }
  std::string stderr_text() const {
    std::ifstream in(stderr_);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
  }

  // Timing-log lines from line `from` on, waiting up to 10 s for at least `want` of them (the
  // server writes a request's line just after its last byte, so it can trail the client).
  std::vector<json> log_since(size_t from, size_t want) const {
    std::vector<json> all;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
      all = read_jsonl(log_);
      if (all.size() >= from + want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < deadline);
    return std::vector<json>(all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())),
                             all.end());
  }
  size_t log_lines() const { return read_jsonl(log_).size(); }

 private:
  std::string script_;
  std::vector<std::string> args_;
  fs::path log_, stderr_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int exit_code_ = -1;
  std::string url_;
  int port_ = 0;
};

struct HttpReply {
  int status = 0;
  std::string body;
};

// A blocking HTTP/1.1 request to 127.0.0.1:port with Connection: close (bad-input tests).
inline HttpReply http_post(int port, const std::string& method, const std::string& path,
                           const std::string& body) {
  HttpReply r;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return r;
  }
  const std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                          "Content-Type: application/json\r\nConnection: close\r\n" +
                          "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t off = 0;
  while (off < req.size()) {
    const ssize_t n = write(fd, req.data() + off, req.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  std::string resp;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) resp.append(buf, static_cast<size_t>(n));
  close(fd);
  if (resp.rfind("HTTP/1.", 0) == 0 && resp.size() > 12) r.status = std::stoi(resp.substr(9, 3));
  const auto h = resp.find("\r\n\r\n");
  if (h != std::string::npos) r.body = resp.substr(h + 4);
  return r;
}

// TGI's routes reject malformed JSON, a missing `inputs`, max_new_tokens over
// `limit` (the server's --max-new-tokens-limit) or of the wrong type, and a
// non-object body with 422 and TGI's error body {"error", "error_type": "validation"}.
inline void expect_tgi_validation_errors(int port, int limit) {
  const std::string over =
      R"({"inputs": "hello", "parameters": {"max_new_tokens": )" + std::to_string(limit + 1) + "}}";
  for (const char* path : {"/generate", "/generate_stream"}) {
    for (const std::string& body :
         {std::string("{not json"), std::string(R"({"parameters": {"max_new_tokens": 4}})"), over,
          std::string(R"({"inputs": "hello", "parameters": {"max_new_tokens": "four"}})"),
          std::string(R"(["inputs"])")}) {
      const HttpReply r = http_post(port, "POST", path, body);
      EXPECT_EQ(r.status, 422) << path << " " << body << ": " << r.body;
      const auto j = json::parse(r.body, nullptr, false);
      ASSERT_TRUE(j.is_object()) << r.body;
      EXPECT_TRUE(j["error"].is_string()) << r.body;
      EXPECT_EQ(j["error_type"], "validation") << r.body;
    }
  }
}

// servebench prof against `url`; returns the run's requests.jsonl records sorted by send time.
struct ProfRun {
  CmdResult cmd;
  std::vector<json> requests;
  json summary;
};
inline ProfRun prof(const std::string& url, const std::string& args, const fs::path& dir) {
  fs::remove_all(dir);
  ProfRun r;
  r.cmd = run_servebench("prof --base-url " + url + " " + args + " --no-progress -q -o " +
                         dir.string());
  r.requests = read_jsonl(dir / "requests.jsonl");
  std::sort(r.requests.begin(), r.requests.end(), [](const json& a, const json& b) {
    return a["t_send_s"].get<double>() < b["t_send_s"].get<double>();
  });
  std::ifstream sf(dir / "summary.json");
  if (sf) r.summary = json::parse(sf, nullptr, false);
  return r;
}

}  // namespace sb::testing
