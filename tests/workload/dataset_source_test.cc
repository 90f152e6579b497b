// PromptSource over datasets, shared prefixes, images and tokenizers (files written to a
// temporary folder; the SentencePiece model is trained by the test fixture).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../tokenizer/test_models.h"
#include "common/error.h"
#include "tokenizer/bpe_tokenizer.h"
#include "workload/image_data.h"
#include "workload/output_tokens.h"
#include "workload/prompt_source.h"
#include "workload/token_estimate.h"

namespace sb::workload {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path temp_dir() {
  static int counter = 0;
  const auto d = fs::temp_directory_path() /
                 ("servebench-ds-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(d);
  return d;
}

std::string write(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

std::string source_error(const WorkloadConfig& c) {
  try {
    PromptSource s(c);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(DatasetSource, JsonlItemsKeepTheirFieldsInASeededOrder) {
  const auto dir = temp_dir();
  std::string text;
  for (int i = 0; i < 20; ++i)
    text += json{{"prompt", "prompt " + std::to_string(i)},
                 {"reference", "ref " + std::to_string(i)},
                 {"max_tokens", i + 1}}
                .dump() +
            "\n";
  const std::string path = write(dir / "d.jsonl", text);
  const PromptSource a({.output_tokens = 99, .seed = 4, .dataset = path});
  const PromptSource b({.output_tokens = 99, .seed = 4, .dataset = path});
  const PromptSource c({.output_tokens = 99, .seed = 5, .dataset = path});
  EXPECT_EQ(a.dataset_size(), 20u);
  EXPECT_TRUE(a.warning().empty());
  std::set<std::string> seen;
  bool same_as_file_order = true, differs_from_c = false;
  for (uint64_t i = 0; i < 20; ++i) {
    const WorkItem item = a.item(i);
    const int k = std::stoi(item.prompt.substr(7));
    EXPECT_EQ(item.reference, "ref " + std::to_string(k));
    EXPECT_EQ(item.max_tokens, k + 1);
    EXPECT_EQ(item.input_tokens, estimate_tokens(item.prompt));
    EXPECT_EQ(item.request_class, "default");
    EXPECT_EQ(item.prompt, b.item(i).prompt);
    EXPECT_EQ(item.prompt, a.item(i + 20).prompt);  // cycles
    same_as_file_order &= k == static_cast<int>(i);
    differs_from_c |= item.prompt != c.item(i).prompt;
    seen.insert(item.prompt);
  }
  EXPECT_EQ(seen.size(), 20u);  // a permutation
  EXPECT_FALSE(same_as_file_order);
  EXPECT_TRUE(differs_from_c);
}

TEST(DatasetSource, ShareGptAutoDetectedAndOutputLengthDrawn) {
  const auto dir = temp_dir();
  const std::string path = write(
      dir / "sharegpt.json",
      R"([{"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}]},
          {"conversations": [{"from": "human", "value": "Yo"}]}])");
  const PromptSource s({.seed = 1, .output_dist = "uniform:min=10,max=20", .dataset = path});
  EXPECT_EQ(s.dataset_size(), 2u);
  for (uint64_t i = 0; i < 40; ++i) {
    const WorkItem item = s.item(i);
    EXPECT_TRUE(item.prompt == "Hi" || item.prompt == "Yo");
    EXPECT_GE(item.max_tokens, 10);
    EXPECT_LE(item.max_tokens, 20);
    if (item.prompt == "Hi") {
      EXPECT_EQ(item.reference, "Hello");
    }
  }
}

TEST(DatasetSource, MalformedLinesSkippedWithAWarningOrAnErrorUnderStrict) {
  const auto dir = temp_dir();
  const std::string path = write(
      dir / "d.jsonl", "{\"prompt\": \"good\"}\n{\"text\": \"x\"}\nnope\n{\"prompt\": \"ok\"}\n");
  const PromptSource s({.dataset = path});
  EXPECT_EQ(s.dataset_size(), 2u);
  EXPECT_NE(
      s.warning().find("skipped 2 malformed records of 4; the first is line 2: no \"prompt\""),
      std::string::npos)
      << s.warning();
  const std::string msg = source_error({.dataset = path, .strict = true});
  EXPECT_NE(msg.find("--dataset '" + path +
                     "' line 2: no \"prompt\", \"messages\" or "
                     "\"conversations\" field (--strict"),
            std::string::npos)
      << msg;
}

TEST(DatasetSource, EmptyOrPromptlessDatasetsAreUsageErrors) {
  const auto dir = temp_dir();
  std::string msg = source_error({.dataset = write(dir / "empty.jsonl", "")});
  EXPECT_NE(msg.find("the file is empty"), std::string::npos) << msg;
  msg = source_error({.dataset = write(dir / "blank.jsonl", "\n\n  \n")});
  EXPECT_NE(msg.find("the file is empty"), std::string::npos) << msg;
  msg = source_error({.dataset = write(dir / "np.jsonl", "{\"question\": \"where?\"}\n")});
  EXPECT_NE(msg.find("holds no usable record (1 malformed; the first, line 1: no \"prompt\""),
            std::string::npos)
      << msg;
  msg = source_error({.dataset = write(dir / "p.txt", "just text\n")});
  EXPECT_NE(msg.find("cannot tell its format"), std::string::npos) << msg;
  msg = source_error({.dataset = (dir / "missing.jsonl").string()});
  EXPECT_NE(msg.find("cannot read the file"), std::string::npos) << msg;
  msg = source_error({.dataset_format = "csv"});
  EXPECT_NE(msg.find("--dataset-format 'csv': expected auto, synthetic, jsonl, sharegpt or images"),
            std::string::npos);
  msg = source_error({.dataset_format = "jsonl"});
  EXPECT_NE(msg.find("needs --dataset PATH"), std::string::npos);
  msg = source_error({.scenario = "chat", .dataset = write(dir / "x.jsonl", "{\"prompt\":\"a\"}")});
  EXPECT_NE(msg.find("exclude each other"), std::string::npos);
}

TEST(DatasetSource, ImagesBecomeDataUrlsForOpenAiAndMarkdownForTgi) {
  const auto dir = temp_dir();
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  write(dir / "cat.png", png);
  write(dir / "dog.JPG", "jpegbytes");
  write(dir / "notes.txt", "not an image");
  const std::string path = write(
      dir / "mm.jsonl",
      R"({"prompt": "What animal?", "image": "cat.png", "reference": "a cat"})"
      "\n"
      R"({"messages": [{"role": "user", "content": "And this?"}], "image": "data:image/gif;base64,R0lG"})");
  const PromptSource s({.dataset = path});
  bool saw_file = false, saw_url = false;
  for (uint64_t i = 0; i < 2; ++i) {
    const WorkItem item = s.item(i);
    const json m = json::parse(item.messages_json);
    ASSERT_EQ(m.size(), 1u);
    const json& parts = m[0]["content"];
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0]["type"], "text");
    EXPECT_EQ(parts[1]["type"], "image_url");
    const std::string url = parts[1]["image_url"]["url"];
    if (item.reference == "a cat") {
      saw_file = true;
      EXPECT_EQ(url, "data:image/png;base64," + base64_encode(png));
      EXPECT_EQ(item.prompt, "![](" + url + ")What animal?");
      EXPECT_EQ(item.input_tokens, estimate_tokens("What animal?"));  // the image is not counted
    } else {
      saw_url = true;
      EXPECT_EQ(url, "data:image/gif;base64,R0lG");
      EXPECT_EQ(parts[0]["text"], "And this?");
    }
  }
  EXPECT_TRUE(saw_file && saw_url);

  // A folder of images: one request per image file, sorted, other files ignored; dog.JPG is
  // named as an image but its bytes are not one: skipped and named, the rest kept.
  const PromptSource folder({.dataset = dir.string()});
  EXPECT_EQ(folder.dataset_size(), 1u);
  EXPECT_NE(folder.warning().find("skipped 1 malformed record of 2; the first is file 2: image"),
            std::string::npos)
      << folder.warning();
  EXPECT_NE(folder.warning().find("dog.JPG': not an image"), std::string::npos) << folder.warning();
  EXPECT_NE(source_error({.dataset = dir.string(), .strict = true}).find("dog.JPG': not an image"),
            std::string::npos);
  const WorkItem item = folder.item(0);
  EXPECT_NE(item.prompt.find("![](data:image/"), std::string::npos);
  EXPECT_NE(item.messages_json.find("Describe this image in detail."), std::string::npos);

  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  const std::string msg = source_error(
      {.dataset = write(dir / "bad.jsonl", R"({"prompt": "x", "image": "missing.png"})")});
  EXPECT_NE(msg.find("missing.png': cannot read the file"), std::string::npos) << msg;
}

TEST(SharedPrefix, NPrefixesTimesMSuffixes) {
  const PromptSource s({.output_tokens = 7,
                        .seed = 3,
                        .shared_prefix = "prefixes=3,suffixes=4,prefix=100,suffix=10"});
  std::set<std::string> prompts, prefixes;
  for (uint64_t i = 0; i < 12; ++i) {
    const WorkItem item = s.item(i);
    const auto nl = item.prompt.find('\n');
    ASSERT_NE(nl, std::string::npos);
    EXPECT_EQ(nl, 400u);                           // 100 tokens of 4 characters
    EXPECT_EQ(item.prompt.size(), 400u + 1 + 40);  // + suffix of 10 tokens
    EXPECT_TRUE(item.prompt.starts_with("Shared context " + std::to_string(i % 3) + ": "));
    EXPECT_EQ(item.prompt.substr(0, nl), s.item(i + 3).prompt.substr(0, nl));  // same prefix
    EXPECT_EQ(item.prompt, s.item(i + 12).prompt);                             // the grid repeats
    EXPECT_EQ(item.max_tokens, 7);
    prompts.insert(item.prompt);
    prefixes.insert(item.prompt.substr(0, nl));
  }
  EXPECT_EQ(prompts.size(), 12u);
  EXPECT_EQ(prefixes.size(), 3u);
  EXPECT_NE(source_error({.shared_prefix = "prefixes=3"}).find("needs prefixes=N and suffixes=M"),
            std::string::npos);
  EXPECT_NE(source_error({.shared_prefix = "prefixes=3,suffixes=0"}).find("whole number"),
            std::string::npos);
}

TEST(TokenizerSource, SyntheticPromptsHaveExactTokenLengths) {
  auto tok = tokenizer::load_tokenizer(testing::sentencepiece_model_path());
  std::shared_ptr<const tokenizer::Tokenizer> shared(std::move(tok));
  const PromptSource s({.seed = 8, .input_dist = "uniform:min=5,max=600"}, shared);
  EXPECT_STREQ(s.input_tokens_source(), "tokenizer");
  int exact = 0;
  const int n = 60;
  for (uint64_t i = 0; i < n; ++i) {
    Rng rng(8, i, 0x1E7);
    const int64_t target = parse_length_spec("uniform:min=5,max=600", "x").sample(rng);
    const WorkItem item = s.item(i);
    EXPECT_EQ(item.input_tokens, shared->count(item.prompt));
    exact += item.input_tokens == target;
    EXPECT_LE(std::llabs(item.input_tokens - target), 1) << item.prompt;
  }
  EXPECT_EQ(exact, n);

  // Shared prefixes: each part is exact, so the whole is within a token of the sum.
  const PromptSource sp({.shared_prefix = "prefixes=2,suffixes=2,prefix=64,suffix=16"}, shared);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_NEAR(sp.item(i).input_tokens, 64 + 16, 2);
  // Datasets are counted with the tokenizer too.
  const auto dir = temp_dir();
  const PromptSource ds({.dataset = write(dir / "t.jsonl", "{\"prompt\": \"hello world\"}\n")},
                        shared);
  EXPECT_EQ(ds.item(0).input_tokens, shared->count("hello world"));
}

TEST(TokenizerSource, LoadsTheConfiguredFileAndRefusesTheWrongKind) {
  const auto dir = temp_dir();
  const PromptSource s(
      {.input_tokens = 50, .tokenizer = write(dir / "tokenizer.json", testing::kHandBpeJson)});
  ASSERT_NE(s.tokenizer(), nullptr);
  EXPECT_EQ(s.tokenizer()->kind(), "bpe");
  const std::string msg = source_error({.tokenizer = write(dir / "vocab.txt", "a\nb\nc\n")});
  EXPECT_NE(msg.find("neither a SentencePiece tokenizer.model nor a Hugging Face tokenizer.json"),
            std::string::npos)
      << msg;
  EXPECT_STREQ(PromptSource({}).input_tokens_source(), "estimate");
}

TEST(OutputTokens, TokenizerCountWithTheServersCountKeptForComparison) {
  const auto tok = tokenizer::parse_bpe_tokenizer_json(testing::kHandBpeJson);
  metrics::RequestRecord r;
  r.output_text = "hello world!";
  r.output_tokens = 4;
  r.output_tokens_source = metrics::TokenSource::usage;
  count_output_tokens(*tok, r);
  EXPECT_EQ(r.output_tokens, 3);
  EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::tokenizer);
  EXPECT_EQ(r.output_tokens_alt, 4);
  EXPECT_EQ(r.output_tokens_alt_source, metrics::TokenSource::usage);

  metrics::RequestRecord e;
  e.output_text = "hello";
  e.output_tokens = 2;
  e.output_tokens_source = metrics::TokenSource::estimate;
  count_output_tokens(*tok, e);
  EXPECT_EQ(e.output_tokens, 1);
  EXPECT_EQ(e.output_tokens_alt, -1);  // an estimate is not kept as a second count

  metrics::RequestRecord none;  // no text: left alone
  none.output_tokens = 5;
  none.output_tokens_source = metrics::TokenSource::details;
  count_output_tokens(*tok, none);
  EXPECT_EQ(none.output_tokens, 5);
  EXPECT_EQ(none.output_tokens_source, metrics::TokenSource::details);
}

}  // namespace
}  // namespace sb::workload
