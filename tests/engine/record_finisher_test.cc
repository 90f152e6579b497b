// RecordFinisher: every pushed job finished once, in push order, on its own thread, and
// close() delivers what is still queued.
#include "engine/record_finisher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sb::engine {
namespace {

TEST(RecordFinisher, FinishesEveryJobOnceInOrderOffThePushingThread) {
  std::mutex mu;
  std::vector<uint64_t> ids;
  std::vector<std::thread::id> threads;
  RecordFinisher f([&](FinishJob& job) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));  // slower than the pushes
    std::lock_guard lock(mu);
    ids.push_back(job.record.id);
    threads.push_back(std::this_thread::get_id());
  });
  for (uint64_t i = 0; i < 200; ++i) {
    FinishJob job;
    job.record.id = i;
    job.reference = "ref";
    f.push(std::move(job));
  }
  f.close();  // the queue still holds most jobs: close() finishes them all
  f.close();  // idempotent
  ASSERT_EQ(ids.size(), 200u);
  for (uint64_t i = 0; i < 200; ++i) EXPECT_EQ(ids[i], i);
  for (const auto& t : threads) {
    EXPECT_NE(t, std::this_thread::get_id());
    EXPECT_EQ(t, threads.front());
  }
}

TEST(RecordFinisher, PushFromManyThreadsLosesNothing) {
  std::atomic<int> done{0};
  {
    RecordFinisher f([&](FinishJob&) { done.fetch_add(1); });
    std::vector<std::thread> pushers;
    for (int t = 0; t < 4; ++t)
      pushers.emplace_back([&f] {
        for (int i = 0; i < 1000; ++i) f.push(FinishJob{});
      });
    for (auto& p : pushers) p.join();
  }  // the destructor closes
  EXPECT_EQ(done.load(), 4000);
}

TEST(RecordFinisher, AThrowingJobDoesNotStopTheOthers) {
  std::atomic<int> done{0};
  RecordFinisher f([&](FinishJob& job) {
    if (job.record.id == 1) throw std::runtime_error("boom");
    done.fetch_add(1);
  });
  for (uint64_t i = 0; i < 3; ++i) {
    FinishJob job;
    job.record.id = i;
    f.push(std::move(job));
  }
  f.close();
  EXPECT_EQ(done.load(), 2);
}

}  // namespace
}  // namespace sb::engine
