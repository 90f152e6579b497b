// `servebench prof` with the workload flags (issue 4 §1-3), as users run it against the
// embedded simulator: scenarios and their per-class results, datasets (and their bad input),
// tokenizers (exact counts, and the wrong kind of file).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/temp_dir.h"
#include "../tokenizer/test_models.h"
#include "run_binary.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using sb::testing::CmdResult;

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("wl-" + name);
}

std::string write(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

json summary(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  return json::parse(in);
}

std::vector<json> requests(const fs::path& dir) {
  std::ifstream in(dir / "requests.jsonl");
  std::vector<json> v;
  for (std::string l; std::getline(in, l);) v.push_back(json::parse(l));
  return v;
}

CmdResult prof(const std::string& args, const fs::path& out) {
  return sb::testing::run_servebench("prof --sim instant --api openai-chat --no-progress -q -o " +
                                     out.string() + " " + args);
}

TEST(WorkloadCli, MixedScenarioReportsEveryClass) {
  const auto dir = temp_dir("mixed");
  const CmdResult r =
      prof("--scenario mixed -n 60 --concurrency 8 --output-dist 4 --seed 3", dir / "run");
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = summary(dir / "run");
  EXPECT_EQ(s["config"]["workload"]["scenario"], "mixed");
  EXPECT_EQ(s["config"]["workload"]["token_counts"], "estimate");
  ASSERT_TRUE(s.contains("classes")) << s.dump();
  const json& classes = s["classes"];
  ASSERT_EQ(classes.size(), 2u);
  int64_t total = 0;
  for (const char* name : {"chat", "long"}) {
    SCOPED_TRACE(name);
    const json& c = classes.at(name);
    for (const char* k : {"requests", "metrics", "throughput", "errors"})
      EXPECT_TRUE(c.contains(k));
    EXPECT_GT(c["metrics"]["ttft_ms"]["count"].get<int>(), 0);
    EXPECT_GT(c["throughput"]["requests_per_s"].get<double>(), 0);
    EXPECT_TRUE(c["errors"].is_object());
    total += c["requests"]["total"].get<int64_t>();
  }
  EXPECT_EQ(total, 60);
  // Long prompts are longer: the estimated input tokens separate the classes.
  EXPECT_GE(classes["long"]["metrics"]["input_tokens"]["min"].get<double>(), 125);
  EXPECT_LE(classes["chat"]["metrics"]["input_tokens"]["max"].get<double>(), 25);
  std::map<std::string, int> per_class;
  for (const json& q : requests(dir / "run")) ++per_class[q["class"].get<std::string>()];
  EXPECT_EQ(per_class["chat"] + per_class["long"], 60);
  EXPECT_GT(per_class["chat"], per_class["long"]);  // 70/30
}

TEST(WorkloadCli, OneScenarioStillReportsItsClass) {
  const auto dir = temp_dir("chat");
  const CmdResult r = prof("--scenario chat -n 10 --output-dist 4", dir / "run");
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = summary(dir / "run");
  ASSERT_TRUE(s.contains("classes"));
  EXPECT_EQ(s["classes"].size(), 1u);
  EXPECT_EQ(s["classes"]["chat"]["requests"]["total"], 10);
}

TEST(WorkloadCli, JsonlDatasetWithMalformedLinesSkippedOrStrict) {
  const auto dir = temp_dir("jsonl");
  const std::string ds = write(dir / "d.jsonl",
                               "{\"prompt\": \"Say hi\", \"max_tokens\": 3, \"class\": \"greet\"}\n"
                               "{\"oops\": true}\n"
                               "{\"messages\": [{\"role\": \"user\", \"content\": \"Count\"}], "
                               "\"max_tokens\": 5, \"class\": \"count\"}\n");
  CmdResult r = prof("--dataset " + ds + " -n 8", dir / "run");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("skipped 1 malformed record of 3; the first is line 2"), std::string::npos)
      << r.out;
  for (const json& q : requests(dir / "run")) {
    EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
    EXPECT_EQ(q["output_tokens"], q["class"] == "greet" ? 3 : 5);
  }
  r = prof("--dataset " + ds + " --strict -n 8", dir / "strict");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("line 2: no \"prompt\", \"messages\" or \"conversations\" field (--strict"),
            std::string::npos)
      << r.out;
}

TEST(WorkloadCli, BadInputIsAClearMessageAndExitCode2) {
  const auto dir = temp_dir("bad");
  struct Case {
    std::string args, message;
  };
  const std::string model_of_wrong_kind =
      write(dir / "tokenizer.json", R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}})");
  const std::vector<Case> cases = {
      {"--scenario chatty", "--scenario 'chatty': unknown scenario; expected chat, long or mixed"},
      {"--dataset " + write(dir / "empty.jsonl", ""), "the file is empty"},
      {"--dataset " + write(dir / "noprompt.jsonl", "{\"question\": \"why?\"}\n"),
       "holds no usable record (1 malformed; the first, line 1: no \"prompt\""},
      {"--dataset-format csv", "--dataset-format 'csv': expected auto"},
      {"--tokenizer " + write(dir / "vocab.txt", "hello\nworld\n"),
       "neither a SentencePiece tokenizer.model nor a Hugging Face tokenizer.json"},
      {"--tokenizer " + model_of_wrong_kind, "model.type 'WordPiece' is not supported"},
      {"--input-dist normal:mean=10", "--input-dist 'normal:mean=10': normal needs mean= and sd="},
      {"--shared-prefix prefixes=2", "needs prefixes=N and suffixes=M"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CmdResult r = prof(c.args + " -n 2", dir / "run");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << r.out;
  }
}

TEST(WorkloadCli, TokenizerCountsOutputsExactlyAndReportsTheUsageDiscrepancy) {
  const auto dir = temp_dir("tok");
  const std::string model = sb::testing::sentencepiece_model_path();
  const CmdResult r =
      prof("--tokenizer " + model + " --input-length 40 --output-length 12 -n 12 --concurrency 3",
           dir / "run");
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = summary(dir / "run");
  EXPECT_EQ(s["config"]["workload"]["token_counts"], "tokenizer");
  EXPECT_EQ(s["token_sources"]["counts"]["tokenizer"], 12);
  EXPECT_EQ(s["token_sources"]["discrepancy"]["count"], 12);
  EXPECT_EQ(s["token_sources"]["discrepancy"]["pairs"]["tokenizer_vs_usage"], 12);
  EXPECT_FALSE(s["token_sources"]["discrepancy"]["mean_abs_tokens"].is_null());
  // (input_tokens are the server's usage.prompt_tokens here: the simulator reports them.)
  for (const json& q : requests(dir / "run")) {
    EXPECT_EQ(q["output_tokens_source"], "tokenizer");
    EXPECT_GT(q["output_tokens"].get<int>(), 0);
  }
}

TEST(WorkloadCli, SharedPrefixAndInputDistributionRun) {
  const auto dir = temp_dir("prefix");
  CmdResult r = prof(
      "--shared-prefix prefixes=2,suffixes=3,prefix=64,suffix=8 -n 12 "
      "--output-length 4",
      dir / "prefix");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(summary(dir / "prefix")["metrics"]["input_tokens"]["max"], 72 + 1);  // + "\n"
  r = prof("--input-dist uniform:min=10,max=20 --output-length 4 -n 30", dir / "dist");
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = summary(dir / "dist");
  EXPECT_GE(s["metrics"]["input_tokens"]["min"].get<double>(), 10);
  EXPECT_LE(s["metrics"]["input_tokens"]["max"].get<double>(), 20);
  EXPECT_GT(s["metrics"]["input_tokens"]["stddev"].get<double>(), 0);
}

}  // namespace
