#pragma once
// A whole file's bytes, for tests that check what servebench wrote ("" when it cannot be read).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace sb::testing {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace sb::testing
