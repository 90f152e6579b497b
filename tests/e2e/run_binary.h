#pragma once
// Runs the servebench binary as a user would, capturing its output and exit code.
#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace sb::testing {

struct CmdResult {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// `args` is appended to the binary's path and run by the shell (quotes work).
inline CmdResult run_servebench(const std::string& args) {
  const std::string cmd = std::string(SERVEBENCH_BINARY) + " " + args + " 2>&1";
  CmdResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace sb::testing
