// --api embeddings and --api rerank against the simulator's /v1/embeddings and /v1/rerank
// (issue 19 item 5): every request ok with as many items as it sent, its input tokens the
// simulator's own count, items/s in summary.json; an image dataset sent as base64 images, a
// file that is not an image skipped with its name and the rest of the run kept; an image the
// server refuses recorded as a validation error without stopping the run; and the batch-size
// effect of a batched encoder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "common/image_bytes.h"
#include "metrics/run_summary.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using protocol::Api;

const std::string kPng("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01", 20);

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("pool-" + name);
}

std::string write(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

std::vector<json> requests(const fs::path& dir) {
  std::ifstream in(dir / "requests.jsonl");
  std::vector<json> v;
  for (std::string l; std::getline(in, l);) v.push_back(json::parse(l));
  return v;
}

void expect_items(Api api, int64_t batch, std::string_view trace_api) {
  auto sim = start_sim("instant");
  auto cfg = config_for(*sim, api, false);
  cfg.workload.batch_inputs = batch;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 20u);
  const auto trace = trace_by_id(*sim);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << to_string(r.error_class) << ": " << r.error;
    EXPECT_EQ(r.items, batch);
    const auto it = trace.find(request_id(r.id));
    ASSERT_NE(it, trace.end()) << r.id;
    EXPECT_EQ(it->second.api, trace_api);
    EXPECT_EQ(r.input_tokens, it->second.prompt_tokens);  // from the usage the server sent
    EXPECT_EQ(r.output_tokens, 0);
    ASSERT_TRUE(r.e2e_ms());
    EXPECT_EQ(r.ttft_ms(), r.e2e_ms());  // one answer: its arrival is first and last
    EXPECT_FALSE(r.tpot_ms());
  }
  metrics::RunInfo info;
  const auto s = metrics::summarize_run(result.records, info);
  ASSERT_TRUE(s.throughput.items_per_s);
  EXPECT_DOUBLE_EQ(*s.throughput.items_per_s,
                   static_cast<double>(batch) * *s.throughput.requests_per_s);
}

TEST(PoolingSim, EmbeddingsBatchesEveryRequestOk) {
  expect_items(Api::embeddings, 4, "embeddings");
}

TEST(PoolingSim, RerankScoresEveryDocument) {
  expect_items(Api::rerank, 6, "rerank");
}

TEST(PoolingSim, ARefusedImageIsAValidationErrorAndTheRunGoesOn) {
  // The client sends a data: URL as written; the simulator decodes it and refuses text bytes.
  const auto dir = temp_dir("refused");
  const std::string ds = write(
      dir / "d.jsonl",
      R"({"prompt":"x","image":"data:image/png;base64,)" + base64_encode("plain text") + "\"}\n" +
          R"({"prompt":"y","image":"data:image/png;base64,)" + base64_encode(kPng) + "\"}\n");
  auto sim = start_sim("instant");
  auto cfg = config_for(*sim, Api::embeddings, false);
  cfg.workload.dataset = ds;
  cfg.load.num_requests = 12;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 12u);
  int ok = 0, refused = 0;
  for (const auto& r : result.records) {
    if (r.ok()) {
      ++ok;
      EXPECT_EQ(r.input_tokens, 257);  // one image: the simulator's image tokens
      continue;
    }
    ++refused;
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.error_class, ErrorClass::validation);
    EXPECT_NE(r.error.find("input[0]: not an image"), std::string::npos) << r.error;
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(refused, 0);
}

TEST(PoolingCli, ImageFolderAsBase64ImagesAndANonImageSkippedByName) {
  const auto dir = temp_dir("images");
  fs::create_directories(dir / "imgs");
  write(dir / "imgs" / "a.png", kPng);
  write(dir / "imgs" / "b.png", kPng);
  write(dir / "imgs" / "fake.jpg", "this is not a jpeg");
  const CmdResult r = run_servebench(
      "prof --sim instant --api embeddings --no-progress -q -n 6 --concurrency 2 --batch-size 2 "
      "--dataset " +
      (dir / "imgs").string() + " -o " + (dir / "run").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("skipped 1 malformed record of 3; the first is file 3: image '"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fake.jpg': not an image"), std::string::npos) << r.out;
  const auto reqs = requests(dir / "run");
  ASSERT_EQ(reqs.size(), 6u);
  for (const json& q : reqs) {
    EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
    EXPECT_EQ(q["items"], 2);
    EXPECT_EQ(q["input_tokens"], 2 * 257);
  }
  std::ifstream in(dir / "run" / "summary.json");
  const json s = json::parse(in);
  EXPECT_EQ(s["config"]["workload"]["batch_inputs"], 2);
  EXPECT_DOUBLE_EQ(s["throughput"]["items_per_s"].get<double>(),
                   2 * s["throughput"]["requests_per_s"].get<double>());
}

TEST(PoolingCli, FlagsThatDoNotFitSayWhy) {
  const auto dir = temp_dir("flags");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--api openai --batch-size 4", "only with --api embeddings or rerank"},
      {"--api embeddings --batch-size 0", "--batch-size 0: inputs per request, at least 1"},
      {"--api embeddings --session-concurrency 2", "sessions and traces are made of generations"},
      {"--api rerank --dataset-format images --dataset " + dir.string(),
       "--api rerank scores text documents"},
      {"--api embeddings --priority-mix high:0.5,normal:0.5", "has no request priority"},
  };
  for (const Case& c : cases) {
    const CmdResult r = run_servebench("prof --sim instant --no-progress -q -n 2 " + c.args +
                                       " -o " + (dir / "run").string());
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
}

// A batched encoder: at one request in flight, 16 inputs a request give several times the
// items/s of one input a request (the tgi preset's 7B model: one forward reads the 13 GB of
// weights whatever its batch, 30 ms, while 16 x 32 tokens of compute take about 140 ms).
TEST(PoolingSim, BatchingMultipliesItemsPerSecond) {
  auto items_per_s = [](int64_t batch) {
    auto sim = start_sim("tgi", 0.2);
    auto cfg = config_for(*sim, Api::embeddings, false);
    cfg.workload.batch_inputs = batch;
    cfg.load.concurrency = 1;
    cfg.load.num_requests = 12;
    const auto result = engine::run_benchmark(cfg, {});
    for (const auto& r : result.records) EXPECT_TRUE(r.ok()) << r.error;
    metrics::RunInfo info;
    return metrics::summarize_run(result.records, info).throughput.items_per_s.value_or(0);
  };
  const double one = items_per_s(1), sixteen = items_per_s(16);
  std::printf(
      "embeddings items/s at concurrency 1 (tgi preset, time scale 0.2): batch 1 %.1f, "
      "batch 16 %.1f (x%.2f)\n",
      one, sixteen, sixteen / one);
  EXPECT_GT(sixteen, 2.0 * one);
}

}  // namespace
}  // namespace sb::testing
