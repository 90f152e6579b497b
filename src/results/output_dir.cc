#include "results/output_dir.h"

#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::results {

namespace fs = std::filesystem;

namespace {

// The first entry under DIR that holds data: anything but an empty file or a folder of them
// (a run that failed before its first request leaves an empty requests.jsonl; retrying it
// loses nothing). "" when there is none.
std::string first_data(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (fs::is_directory(st)) continue;
    if (fs::is_regular_file(st) && it->file_size(ec) == 0 && !ec) continue;
    return fs::relative(it->path(), dir, ec).string();
  }
  return ec ? std::string("(unreadable: ") + ec.message() + ")" : "";
}

}  // namespace

void prepare_output_dir(const std::string& dir, bool overwrite) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw usage_error(fmt::format("-o {}: exists and is not a folder; give a new folder", dir));
    if (overwrite) return;
    if (const std::string held = first_data(dir); !held.empty())
      throw usage_error(
          fmt::format("-o {}: the folder is not empty (it holds '{}'); give a new folder, or add "
                      "--overwrite to write over the files of an earlier run",
                      dir, held));
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("-o {}: cannot create it ({})", dir, ec.message()));
}

}  // namespace sb::results
