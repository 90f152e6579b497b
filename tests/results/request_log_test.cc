#include "results/request_log.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/manual_time_source.h"

namespace sb::results {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class RequestLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sb_request_log_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> lines() const {
    std::ifstream in(dir_ / "requests.jsonl");
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

  fs::path dir_;
};

metrics::RequestRecord record(uint64_t id) {
  metrics::RequestRecord r;
  r.id = id;
  r.t_send_ns = static_cast<int64_t>(id) * 1000;
  r.error = "body with \"quotes\" and\nnewline";
  r.itl_ms = {1.5f, 2.5f};
  return r;
}

TEST_F(RequestLogTest, ManyThreadsAllLinesPresentAndValid) {
  constexpr int kThreads = 8, kPerThread = 2000;
  {
    RequestLog log(dir_.string(), 20ms);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&log, t] {
        for (int i = 0; i < kPerThread; ++i) log.append(record(t * kPerThread + i));
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(log.lines_appended(), uint64_t{kThreads * kPerThread});
    log.close();
  }
  const auto ls = lines();
  ASSERT_EQ(ls.size(), size_t{kThreads * kPerThread});
  std::set<uint64_t> ids;
  for (const auto& l : ls) {
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(l)) << l;
    ids.insert(j.at("id").get<uint64_t>());
  }
  EXPECT_EQ(ids.size(), size_t{kThreads * kPerThread});
}

// The flush interval runs on the log's TimeSource: nothing is written before it elapses on
// the manual clock, everything appended so far once it has (the log still open).
TEST_F(RequestLogTest, FlushesWhenTheIntervalElapsesOnItsClockAndNotBefore) {
  ManualTimeSource clock;
  RequestLog log(dir_.string(), 50ms, &clock);
  ASSERT_TRUE(clock.wait_for_sleepers(1));  // the flusher waits for its first deadline
  log.append(record(1));
  log.append(record(2));
  clock.advance(50ms - 1ns);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 0u);  // 1 ns short of the interval: still in memory
  clock.advance(1ns);
  ASSERT_TRUE(clock.wait_for_sleepers(1));  // flushed, asleep until the next interval
  EXPECT_EQ(lines().size(), 2u);            // on disk while the log is still open
  log.append(record(3));
  clock.advance(49ms);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 2u);
  clock.advance(1ms);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 3u);
  log.append(record(4));
  log.close();  // close() writes the rest without the clock moving
  EXPECT_EQ(lines().size(), 4u);
}

TEST_F(RequestLogTest, DefaultIntervalIsOneSecondOfItsClock) {
  ManualTimeSource clock;
  RequestLog log(dir_.string(), std::chrono::seconds(1), &clock);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  log.append(record(1));
  clock.advance(999ms);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 0u);
  clock.advance(1ms);
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  EXPECT_EQ(lines().size(), 1u);
}

// On the default (steady) clock the interval is real time: one short real wait, bounded.
TEST_F(RequestLogTest, PeriodicFlushOnTheSteadyClock) {
  RequestLog log(dir_.string(), 20ms);
  log.append(record(1));
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (lines().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(lines().size(), 1u);
}

TEST_F(RequestLogTest, CloseIsIdempotentAndLaterAppendsIgnored) {
  RequestLog log(dir_.string());
  log.append(record(1));
  log.close();
  log.close();
  log.append(record(2));
  EXPECT_EQ(lines().size(), 1u);
}

TEST_F(RequestLogTest, MissingDirectoryThrows) {
  EXPECT_THROW(RequestLog((dir_ / "no" / "such").string()), Error);
}

}  // namespace
}  // namespace sb::results
