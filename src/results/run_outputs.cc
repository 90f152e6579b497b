#include "results/run_outputs.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "results/summary_csv.h"
#include "results/summary_json.h"

namespace sb::results {

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  const bool wrote = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int saved = errno;
  if (std::fclose(f) != 0 || !wrote) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", tmp, std::strerror(wrote ? errno : saved)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(err)));
  }
}

void write_run_outputs(const std::string& dir, const metrics::RunSummary& summary,
                       const metrics::RunInfo& info) {
  write_file_atomically(
      dir + "/summary.json",
      summary_to_json(summary, info).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n");
  write_file_atomically(dir + "/summary.csv", summary_csv_header() + summary_csv_row(summary));
}

}  // namespace sb::results
