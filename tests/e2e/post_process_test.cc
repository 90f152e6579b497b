// Quality scoring (and tokenizer recounts) run after the request leaves the event loop: a
// run against references delivers every record once, scored, from a thread that is not an
// event loop; a run without them still delivers on the loop (the probe sees the loop).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "engine/worker.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;

struct Delivery {
  int calls = 0;
  bool on_loop = false;
  bool scored = false;
};

// A dataset of 8 chat prompts, each with a reference when `references` is set.
fs::path write_dataset(bool references) {
  const fs::path p =
      fs::temp_directory_path() / ("servebench-post-process-" + std::to_string(getpid()) +
                                   (references ? "-ref" : "-noref") + ".jsonl");
  std::ofstream out(p);
  for (int i = 0; i < 8; ++i) {
    out << R"({"prompt": "Say something about the number )" << i << R"(.", "max_tokens": 12)";
    if (references) out << R"(, "reference": "The number )" << i << R"( is a number.")";
    out << "}\n";
  }
  return p;
}

std::map<uint64_t, Delivery> run_with_dataset(const fs::path& dataset, size_t* kept) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, protocol::Api::openai_chat, true);
  cfg.workload.dataset = dataset.string();
  std::mutex mu;
  std::map<uint64_t, Delivery> seen;
  engine::RunHooks hooks;
  hooks.on_record = [&](const metrics::RequestRecord& r) {
    const bool loop = engine::on_event_loop_thread();
    std::lock_guard lock(mu);
    Delivery& d = seen[r.id];
    ++d.calls;
    d.on_loop = loop;
    d.scored = r.quality != nullptr;
  };
  const auto result = engine::run_benchmark(cfg, hooks);
  *kept = result.records.size();
  for (const auto& r : result.records) EXPECT_TRUE(r.ok()) << r.id << ": " << r.error;
  return seen;
}

TEST(PostProcess, ScoresOffTheEventLoopAndDeliversEachRecordOnce) {
  const fs::path dataset = write_dataset(true);
  size_t kept = 0;
  const auto seen = run_with_dataset(dataset, &kept);
  fs::remove(dataset);
  EXPECT_EQ(kept, 20u);
  ASSERT_EQ(seen.size(), 20u);
  for (const auto& [id, d] : seen) {
    EXPECT_EQ(d.calls, 1) << id;
    EXPECT_TRUE(d.scored) << id;
    EXPECT_FALSE(d.on_loop) << id << ": scored on an event loop thread";
  }
}

TEST(PostProcess, WithoutReferencesRecordsStayOnTheLoop) {
  const fs::path dataset = write_dataset(false);
  size_t kept = 0;
  const auto seen = run_with_dataset(dataset, &kept);
  fs::remove(dataset);
  EXPECT_EQ(kept, 20u);
  ASSERT_EQ(seen.size(), 20u);
  for (const auto& [id, d] : seen) {
    EXPECT_EQ(d.calls, 1) << id;
    EXPECT_FALSE(d.scored) << id;
    EXPECT_TRUE(d.on_loop) << id << ": the probe should see the loop thread";
  }
}

}  // namespace
}  // namespace sb::testing
