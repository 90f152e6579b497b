#include "workload/prompt_source.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"
#include "workload/token_estimate.h"

namespace sb::workload {
namespace {

namespace fs = std::filesystem;

// A file under the test's temporary directory, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(std::string_view content) {
    static int counter = 0;
    path_ = fs::path(::testing::TempDir()) / ("servebench_prompts_" + std::to_string(::getpid()) +
                                              "_" + std::to_string(counter++) + ".txt");
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// The usage error's message, or "" when constructing the source does not throw one.
std::string construction_error(const WorkloadConfig& config) {
  try {
    PromptSource source(config);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(EstimateTokens, CharsOverFourRoundedUp) {
  EXPECT_EQ(estimate_tokens(""), 0);
  EXPECT_EQ(estimate_tokens("a"), 1);
  EXPECT_EQ(estimate_tokens("abcd"), 1);
  EXPECT_EQ(estimate_tokens("abcde"), 2);
  EXPECT_EQ(estimate_tokens("abcdefgh"), 2);
  EXPECT_EQ(estimate_tokens(std::string(1001, 'x')), 251);
}

TEST(SyntheticPrompts, LengthMatchesTargetInEstimatedTokens) {
  for (int64_t target : {1, 2, 6, 8, 16, 50, 128, 256, 1000, 4096, 32768}) {
    SCOPED_TRACE(target);
    PromptSource source({.input_tokens = target, .output_tokens = 64, .seed = 3});
    for (uint64_t i : {0ull, 1ull, 7ull, 99999ull, 123456789012ull}) {
      const WorkItem item = source.item(i);
      EXPECT_EQ(item.input_tokens, estimate_tokens(item.prompt));
      EXPECT_EQ(item.input_tokens, target);  // exact; the issue asks for within 10%
      EXPECT_LE(std::abs(item.input_tokens - target), target / 10);
      EXPECT_EQ(static_cast<int64_t>(item.prompt.size()), target * kCharsPerToken);
      EXPECT_EQ(item.max_tokens, 64);
      EXPECT_EQ(item.request_class, "default");
      EXPECT_TRUE(item.messages_json.empty());
    }
  }
}

TEST(SyntheticPrompts, ReadableVariedAndDistinctPerIndex) {
  PromptSource source({.input_tokens = 256});
  std::set<std::string> words;
  std::set<std::string> first_32_chars;
  for (uint64_t i = 0; i < 200; ++i) {
    const std::string p = source.item(i).prompt;
    ASSERT_EQ(p.rfind("Request " + std::to_string(i) + ": ", 0), 0u) << p;
    first_32_chars.insert(p.substr(0, 32));
    for (char c : p) {
      ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '.' || c == ':')
          << p;
    }
    EXPECT_EQ(p.find("  "), std::string::npos) << p;
    EXPECT_NE(p.find(". "), std::string::npos) << p;  // more than one sentence
    std::istringstream in(p);
    for (std::string w; in >> w;) words.insert(w);
  }
  EXPECT_EQ(first_32_chars.size(), 200u);
  EXPECT_GT(words.size(), 150u);
  // Sentences start with a capital letter.
  const std::string p = source.item(5).prompt;
  EXPECT_TRUE(std::isupper(static_cast<unsigned char>(p[std::string("Request 5: ").size()])));
}

TEST(SyntheticPrompts, DeterministicPerSeedAndIndex) {
  PromptSource a({.input_tokens = 100, .seed = 42});
  PromptSource b({.input_tokens = 100, .seed = 42});
  PromptSource c({.input_tokens = 100, .seed = 43});
  for (uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(a.item(i).prompt, b.item(i).prompt);
    EXPECT_EQ(a.item(i).prompt, a.item(i).prompt);
    EXPECT_NE(a.item(i).prompt, c.item(i).prompt);
    // Apart from the "Request <i>: " start, neighbouring indexes differ too.
    EXPECT_NE(a.item(i).prompt.substr(16), a.item(i + 1).prompt.substr(16));
  }
}

TEST(SyntheticPrompts, ThreadSafeConst) {
  const PromptSource source({.input_tokens = 64, .seed = 9});
  std::vector<std::string> expected;
  for (uint64_t i = 0; i < 400; ++i) expected.push_back(source.item(i).prompt);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 400; ++i) mismatches[t] += source.item(i).prompt != expected[i];
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(SyntheticPrompts, RejectsBadInputLength) {
  for (int64_t bad : {0, -5, 10'000'001}) {
    SCOPED_TRACE(bad);
    const std::string msg = construction_error({.input_tokens = bad});
    EXPECT_NE(msg.find("invalid input length " + std::to_string(bad)), std::string::npos) << msg;
  }
}

TEST(PromptFile, OnePromptPerLineCycledByIndex) {
  TempFile file(
      "\xEF\xBB\xBF"
      "first prompt\n"
      "\n"
      "second, with a literal \\n escape\r\n"
      "   \t\n"
      "  third keeps its spaces  \n"
      "fourth without newline");
  PromptSource source({.input_tokens = 0, .output_tokens = 32, .prompt_file = file.path()});
  const std::vector<std::string> lines = {"first prompt", "second, with a literal \\n escape",
                                          "  third keeps its spaces  ", "fourth without newline"};
  for (uint64_t i = 0; i < 10; ++i) {
    const WorkItem item = source.item(i);
    EXPECT_EQ(item.prompt, lines[i % lines.size()]);
    EXPECT_EQ(item.input_tokens, (static_cast<int64_t>(item.prompt.size()) + 3) / 4);
    EXPECT_EQ(item.max_tokens, 32);
    EXPECT_EQ(item.request_class, "default");
  }
  EXPECT_EQ(source.item(0).input_tokens, 3);  // "first prompt": 12 chars
  EXPECT_EQ(source.item(1'000'000'001).prompt, lines[1]);
}

TEST(PromptFile, ErrorsNameThePath) {
  const std::string missing = ::testing::TempDir() + "servebench_no_such_prompts.txt";
  std::string msg = construction_error({.prompt_file = missing});
  EXPECT_EQ(msg, "cannot read prompt file \"" + missing + "\": No such file or directory");

  TempFile empty("");
  msg = construction_error({.prompt_file = empty.path()});
  EXPECT_NE(msg.find("prompt file \"" + empty.path() + "\" holds no prompt"), std::string::npos)
      << msg;

  TempFile blank("\n \n\r\n\t\n");
  msg = construction_error({.prompt_file = blank.path()});
  EXPECT_NE(msg.find("\"" + blank.path() + "\" holds no prompt"), std::string::npos) << msg;

  msg = construction_error({.prompt_file = ::testing::TempDir()});
  EXPECT_NE(msg.find("cannot read prompt file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sb::workload
