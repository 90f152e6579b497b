#include "results/output_dir.h"

#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::results {

namespace fs = std::filesystem;

void prepare_output_dir(const std::string& dir, bool overwrite) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw usage_error(fmt::format("-o {}: exists and is not a folder; give a new folder", dir));
    fs::directory_iterator it(dir, ec);
    if (ec) throw usage_error(fmt::format("-o {}: cannot read the folder ({})", dir, ec.message()));
    if (it != fs::directory_iterator() && !overwrite) {
      const std::string first = it->path().filename().string();
      const bool more = it.increment(ec) != fs::directory_iterator();
      throw usage_error(
          fmt::format("-o {}: the folder is not empty (it holds '{}'{}); give a new folder, or add "
                      "--overwrite to write over the files of an earlier run",
                      dir, first, more ? ", ..." : ""));
    }
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("-o {}: cannot create it ({})", dir, ec.message()));
}

}  // namespace sb::results
