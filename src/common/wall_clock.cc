#include "common/wall_clock.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"

namespace sb {

std::string iso_utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

std::string create_unique_dir(const std::string& base) {
  int err = 0;
  for (int i = 1; i < 1000; ++i) {
    const std::string dir = i == 1 ? base : fmt::format("{}-{}", base, i);
    // mkdir is atomic: of two processes racing for one name, exactly one gets it, the other
    // EEXIST (and takes the next name). Never "exists, then create".
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;
    err = errno;
    if (err != EEXIST) break;
  }
  throw usage_error(
      fmt::format("cannot create a results folder {} ({}); give one with -o DIR", base,
                  err == EEXIST ? "too many runs in one second" : std::strerror(err)));
}

std::string create_default_run_dir(const std::string& suffix) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  std::error_code ec;
  std::filesystem::create_directories("runs", ec);
  return create_unique_dir(fmt::format("runs/{:04}{:02}{:02}-{:02}{:02}{:02}-{}", tm.tm_year + 1900,
                                       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                                       suffix));
}

}  // namespace sb
