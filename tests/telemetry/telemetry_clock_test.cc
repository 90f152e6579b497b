// The samplers on the clock seam (common/time_source.h): under a ManualTimeSource they tick at
// run_start + k * interval exactly, stamp exactly, and never sleep in real time; samples are
// streamed to telemetry.jsonl after each tick.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/manual_time_source.h"
#include "telemetry/telemetry.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kRss = "host/rss_bytes{process=\"client\"}";
const std::string kCpu = "host/cpu_pct{process=\"client\"}";

TelemetryConfig host_only(const TimeSource& clock, Nanos interval) {
  TelemetryConfig c;
  c.interval = interval;
  c.gpu = GpuMode::off;
  c.host = true;
  c.time_source = &clock;
  return c;
}

std::vector<int64_t> stamps(const SeriesStore& store, const std::string& key) {
  std::vector<int64_t> out;
  for (const auto& p : store.points(key)) out.push_back(p.first);
  return out;
}

TEST(TelemetryClock, TicksExactlyAtKIntervalsOfTheManualClock) {
  ManualTimeSource clock;
  Telemetry t(host_only(clock, 100ms));
  t.open();
  t.start(clock.now());
  ASSERT_TRUE(clock.wait_for_sleepers(1));  // tick 0 (due at run start) taken, waiting for 1
  for (int k = 1; k <= 10; ++k) {
    clock.advance(100ms - 1ns);
    ASSERT_TRUE(clock.wait_for_sleepers(1));
    EXPECT_EQ(t.store().points(kRss).size(), static_cast<size_t>(k));  // not yet
    clock.advance(1ns);
    ASSERT_TRUE(clock.wait_for_sleepers(1));  // tick k taken
  }
  t.stop();
  std::vector<int64_t> want;
  for (int64_t k = 0; k <= 10; ++k) want.push_back(k * 100'000'000);
  EXPECT_EQ(stamps(t.store(), kRss), want);
  // CPU% needs two readings: none at tick 0 (same instant as the start's reading).
  EXPECT_EQ(stamps(t.store(), kCpu), std::vector<int64_t>(want.begin() + 1, want.end()));
  EXPECT_EQ(t.to_json()["sources"][1]["ok"], 11);
}

TEST(TelemetryClock, ALateTickIsTakenWhenWokenAndTheMissedTicksAreSkipped) {
  ManualTimeSource clock;
  const TimePoint start = clock.now();
  Telemetry t(host_only(clock, 100ms));
  t.open();
  t.start(start);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  clock.advance(150ms);  // tick 1 half an interval late: taken, stamped at 150 ms
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  clock.advance_to(start + 550ms);  // due 200 ms, taken at 550; 300..500 missed: skipped
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  clock.advance_to(start + 600ms - 1ns);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  clock.advance_to(start + 600ms);  // back on the grid
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  t.stop();
  EXPECT_EQ(stamps(t.store(), kRss),
            (std::vector<int64_t>{0, 150'000'000, 550'000'000, 600'000'000}));
}

TEST(TelemetryClock, StopWakesSleepingSamplersWithoutTheClockMoving) {
  ManualTimeSource clock;
  TelemetryConfig c = host_only(clock, std::chrono::hours(1));
  c.server_urls = {"http://127.0.0.1:9/metrics"};  // a second sampler (fails; counted)
  Telemetry t(c);
  t.open();
  t.start(clock.now());
  ASSERT_TRUE(clock.wait_for_sleepers(2));
  t.stop();  // returns: both sleepers woken
  EXPECT_EQ(clock.sleepers(), 0);
  EXPECT_EQ(t.store().points(kRss).size(), 1u);
}

class TelemetryStream : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sb_telemetry_stream_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "telemetry.jsonl").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<JsonlStream> open_stream() const {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0);
    return std::make_unique<JsonlStream>(fd, path_);
  }
  std::vector<nlohmann::json> lines() const {
    std::ifstream in(path_);
    std::vector<nlohmann::json> out;
    for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
    return out;
  }
  fs::path dir_;
  std::string path_;
};

// Every tick's samples are on disk once its sampler waits for the next tick, the Telemetry
// still running; the lines are those SeriesStore::write_jsonl writes (same set, same fields).
TEST_F(TelemetryStream, EachTicksSamplesAreOnDiskBeforeTheNextTick) {
  ManualTimeSource clock;
  Telemetry t(host_only(clock, 50ms));
  t.open();
  t.stream_to(open_stream());
  t.start(clock.now());
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 1u);  // tick 0: RSS only
  for (int k = 1; k <= 5; ++k) {
    clock.advance(50ms);
    ASSERT_TRUE(clock.wait_for_sleepers(1));
    EXPECT_EQ(lines().size(), static_cast<size_t>(1 + 2 * k));  // RSS and CPU per tick
  }
  const auto streamed = lines();
  EXPECT_EQ(streamed.back()["t_s"], 0.25);
  EXPECT_EQ(streamed.back()["source"], "host");
  t.stop();
  ASSERT_TRUE(t.stream()->ok()) << t.stream()->error();
  EXPECT_EQ(t.stream()->lines_written(), 11);
  const std::string end_path = (dir_ / "end.jsonl").string();
  ASSERT_TRUE(t.write_jsonl(end_path));
  std::multiset<std::string> a, b;
  for (const auto& j : lines()) a.insert(j.dump());
  std::ifstream in(end_path);
  for (std::string l; std::getline(in, l);) b.insert(nlohmann::json::parse(l).dump());
  EXPECT_EQ(a, b);
}

TEST_F(TelemetryStream, AppendAfterCloseIsIgnoredAndAWriteErrorIsKept) {
  JsonlStream s(::open("/dev/full", O_WRONLY | O_CLOEXEC), "/dev/full");
  const std::string prefix = jsonl_prefix(SeriesMeta{"host", "x", {}, "", "", "gauge"});
  s.append(prefix, 0, 1.0);
  s.flush();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error().find("/dev/full"), std::string::npos) << s.error();
  s.close();
  s.append(prefix, 1, 2.0);
  EXPECT_EQ(s.lines_written(), 0);
}

}  // namespace
}  // namespace sb::telemetry
