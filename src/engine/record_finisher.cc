#include "engine/record_finisher.h"

#include <exception>
#include <utility>

#include <fmt/format.h>

namespace sb::engine {

RecordFinisher::RecordFinisher(std::function<void(FinishJob&)> finish)
    : finish_(std::move(finish)), thread_([this] { loop(); }) {}

RecordFinisher::~RecordFinisher() {
  close();
}

void RecordFinisher::push(FinishJob job) {
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void RecordFinisher::close() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void RecordFinisher::loop() {
  std::deque<FinishJob> batch;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, and every job is done
      batch.swap(queue_);
    }
    // The work runs without the lock: push() never waits for a score.
    for (FinishJob& job : batch) {
      try {
        finish_(job);
      } catch (const std::exception& e) {
        // Not expected (scoring and counting do not throw); say it rather than end the process.
        fmt::print(stderr, "servebench: post-processing of request {} failed: {}\n", job.record.id,
                   e.what());
      }
    }
    batch.clear();
  }
}

}  // namespace sb::engine
