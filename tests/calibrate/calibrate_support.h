#pragma once
// Shared by tests/calibrate: run folders made with the servebench binary (predict sweep or a
// live time-scaled sweep) from a preset file of known parameters, and the calibrate command.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "sim/preset_file.h"

namespace sb::testing {

namespace fs = std::filesystem;

// A scratch folder under the temp folder, removed at the end of the test.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : dir_(fs::temp_directory_path() /
             fmt::format("sb_calibrate_{}_{}", name, static_cast<long>(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  const fs::path& dir() const { return dir_; }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

 private:
  fs::path dir_;
};

inline nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The fitted values of a preset file, by canonical key.
inline std::map<std::string, double> fitted_values(const fs::path& yaml) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : sim::read_preset_file(yaml.string()).values) out[k] = std::stod(v);
  return out;
}

}  // namespace sb::testing
