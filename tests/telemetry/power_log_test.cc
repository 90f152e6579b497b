// read_power_log: the power series among a telemetry.jsonl's lines, whatever block size the
// file is read in (every split of every line).
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "telemetry/power_log.h"

namespace sb::telemetry {
namespace {

namespace fs = std::filesystem;

// Lines as SeriesStore::write_jsonl writes them, other series among them, a line that does not
// parse, a null value and a last line without its line end.
constexpr const char* kLog =
    R"({"t_s":0.5,"source":"gpu","name":"sm_util_pct","key":"gpu/sm_util_pct{device=\"0\"}","value":40})"
    "\n"
    R"({"t_s":0.5,"source":"gpu","name":"power_w","key":"gpu/power_w{device=\"0\"}","value":100.5})"
    "\n"
    R"({"t_s":0.5,"source":"gpu","name":"power_w","key":"gpu/power_w{device=\"1\"}","value":90})"
    "\n"
    R"({"t_s":0.5,"source":"server","name":"DCGM_FI_DEV_POWER_USAGE","key":"server/DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}","value":250})"
    "\n"
    R"({"t_s":1.0,"source":"gpu","name":"power_w","key":"gpu/power_w{device=\"0\"}","value":null})"
    "\n"
    R"({"t_s":1.0,"source":"gpu","name":"power_w","key":"gpu/power_w{dev)"
    "\n"
    R"({"t_s":1.5,"source":"server","name":"tgi_queue_size","key":"server/tgi_queue_size","value":3})"
    "\n"
    R"({"t_s":1.5,"source":"gpu","name":"power_w","key":"gpu/power_w{device=\"0\"}","value":120})"
    "\n"
    R"({"t_s":1.5,"source":"server","name":"DCGM_FI_DEV_POWER_USAGE","key":"server/DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}","value":260})";

TEST(PowerLog, ThePowerSeriesInFileOrderWhateverTheBlockSize) {
  const fs::path file =
      fs::temp_directory_path() / ("sb_power_log_" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(file) << kLog;
  const std::string text = kLog;
  for (size_t block = 1; block <= text.size() + 1; ++block) {
    const PowerLog log = read_power_log(file.string(), block);
    ASSERT_EQ(log.gpu.size(), 2u) << block;
    EXPECT_EQ(log.gpu[0].name, "gpu/power_w{device=\"0\"}");
    ASSERT_EQ(log.gpu[0].points.size(), 2u) << block;
    EXPECT_EQ(log.gpu[0].points[0].first, 500'000'000);
    EXPECT_EQ(log.gpu[0].points[0].second, 100.5);
    EXPECT_EQ(log.gpu[0].points[1].first, 1'500'000'000);
    EXPECT_EQ(log.gpu[0].points[1].second, 120);
    ASSERT_EQ(log.gpu[1].points.size(), 1u);
    EXPECT_EQ(log.gpu[1].points[0].second, 90);
    ASSERT_EQ(log.gauge.size(), 1u) << block;
    EXPECT_EQ(log.gauge[0].name, "server/DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}");
    ASSERT_EQ(log.gauge[0].points.size(), 2u) << block;
    EXPECT_EQ(log.gauge[0].points[1].second, 260) << "the last line, without its line end";
  }
  fs::remove(file);
  const PowerLog none = read_power_log(file.string());
  EXPECT_TRUE(none.gpu.empty());
  EXPECT_TRUE(none.gauge.empty());
}

}  // namespace
}  // namespace sb::telemetry
