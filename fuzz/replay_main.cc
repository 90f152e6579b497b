// Replays a fuzz target's corpus without libFuzzer: runs LLVMFuzzerTestOneInput
// over every regular file of each folder (or file) named on the command line, so
// that `make test` (g++, no sanitizer needed) keeps every corpus input and every
// past finding as a regression test. Exit status 0 when all ran, 1 when a path
// holds no input at all (an empty corpus is a mistake, not a pass).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& p) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(p)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(p))
      if (e.is_regular_file()) files.push_back(e.path());
  } else if (std::filesystem::is_regular_file(p)) {
    files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  size_t total = 0;
  for (int i = 1; i < argc; ++i) {
    const auto files = inputs_under(argv[i]);
    if (files.empty()) {
      std::fprintf(stderr, "replay: no input under '%s'\n", argv[i]);
      return 1;
    }
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      // A copy in its own allocation, so that ASan sees reads past the end.
      std::vector<uint8_t> data(bytes.begin(), bytes.end());
      LLVMFuzzerTestOneInput(data.data(), data.size());
      ++total;
    }
  }
  std::printf("replay: %zu inputs ok\n", total);
  return 0;
}
