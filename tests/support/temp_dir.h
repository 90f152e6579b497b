#pragma once
// A fresh folder for one test's files: <system temp>/servebench-<what>-<pid>, removed first if
// a killed run left it; created unless `create` is false (for a command that makes its own -o
// folder, or checks that it does).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace sb::testing {

inline std::filesystem::path fresh_temp_dir(std::string_view what, bool create = true) {
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() /
                     ("servebench-" + std::string(what) + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  if (create) fs::create_directories(d);
  return d;
}

}  // namespace sb::testing
