#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"
#include "test_models.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/byte_level.h"

namespace sb::tokenizer {
namespace {

using Ids = std::vector<int>;

std::string load_error(const std::string& path) {
  try {
    load_tokenizer(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

std::string bpe_error(std::string_view json) {
  try {
    parse_bpe_tokenizer_json(json);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

// --- byte-level alphabet -------------------------------------------------------------------

TEST(ByteLevel, Gpt2Alphabet) {
  EXPECT_EQ(to_byte_level(" "), "\xC4\xA0");                 // U+0120 'Ġ'
  EXPECT_EQ(to_byte_level("\n"), "\xC4\x8A");                // U+010A 'Ċ'
  EXPECT_EQ(to_byte_level("a!~"), "a!~");                    // printable ASCII maps to itself
  EXPECT_EQ(to_byte_level("\xC3\xA9"), "\xC3\x83\xC2\xA9");  // 'é' -> "Ã©"
  EXPECT_EQ(to_byte_level("\x97"), "\xC4\xB9");  // 0x97 is the 58th remapped byte: U+0139
  EXPECT_EQ(to_byte_level("\xAD"), "\xC5\x83");  // the last remapped byte: U+0143
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(from_byte_level(to_byte_level(all)), all);
  EXPECT_FALSE(from_byte_level("\xE6\x97\xA5").has_value());  // '日' is not in the alphabet
}

// --- hand-written GPT-2-style tokenizer.json -----------------------------------------------

class HandBpe : public ::testing::Test {
 protected:
  std::unique_ptr<Tokenizer> tok = parse_bpe_tokenizer_json(testing::kHandBpeJson);
};

TEST_F(HandBpe, HandComputedEncodings) {
  EXPECT_EQ(tok->kind(), "bpe");
  EXPECT_EQ(tok->vocab_size(), 31u);
  // "hello": h e l l o -> (h e) -> (l l) -> (he ll) -> (hell o) = 11.
  // " world": Ġ w o r l d -> (Ġ w) -> (o r) -> (Ġw or) -> (Ġwor l) -> (Ġworl d) = 16.
  EXPECT_EQ(tok->encode("hello world"), (Ids{11, 16}));
  EXPECT_EQ(tok->encode("hello world!"), (Ids{11, 16, 17}));
  // " hello": Ġ then "hello"; no (Ġ hello) merge.
  EXPECT_EQ(tok->encode("hello hello"), (Ids{11, 4, 11}));
  // "held": only (h e) applies.
  EXPECT_EQ(tok->encode("held"), (Ids{8, 2, 7}));
  EXPECT_EQ(tok->encode("hello\n"), (Ids{11, 28}));
  EXPECT_EQ(tok->encode(""), Ids{});
}

TEST_F(HandBpe, ByteLevelNonAscii) {
  // 'é' = C3 A9 -> "Ã" "©" -> (Ã ©) = 20; "café" -> c a f Ã© -> (c a) (ca f) (caf Ã©) = 26.
  EXPECT_EQ(tok->encode("\xC3\xA9"), (Ids{20}));
  EXPECT_EQ(tok->encode("caf\xC3\xA9"), (Ids{26}));
  EXPECT_EQ(tok->decode({26}), "caf\xC3\xA9");
  // '日' = E6 97 A5: no byte character of it is in this vocabulary: three unknowns.
  EXPECT_EQ(tok->encode("\xE6\x97\xA5"), (Ids{27, 27, 27}));
  EXPECT_EQ(tok->count("\xE6\x97\xA5"), 3);
  // Invalid UTF-8 is still encoded, byte by byte.
  EXPECT_EQ(tok->encode("\xFF"), (Ids{27}));
}

TEST_F(HandBpe, AddedTokensAndDecode) {
  EXPECT_EQ(tok->encode("hello<|end|>z"), (Ids{11, 29, 27}));  // 'z' is unknown
  EXPECT_EQ(tok->encode("<|end|><|end|>"), (Ids{29, 29}));
  EXPECT_EQ(tok->decode({11, 4, 11, 29}), "hello hello<|end|>");
  EXPECT_EQ(tok->decode({11, 16, 17}), "hello world!");
  EXPECT_EQ(tok->decode({11, 9999, -1}), "hello");  // unknown ids decode to nothing
  for (const char* s : {"hello world!", "caf\xC3\xA9 hello", "hello\nhello world"})
    EXPECT_EQ(tok->decode(tok->encode(s)), s);
}

TEST(Llama3StyleBpe, SplitRegexIgnoreMergesAndDigits) {
  const auto tok = parse_bpe_tokenizer_json(testing::kLlama3StyleJson);
  EXPECT_EQ(tok->encode("hello world"), (Ids{11, 16}));  // whole pre-tokens, no merges
  EXPECT_EQ(tok->encode("12345"), (Ids{30, 31}));        // \p{N}{1,3}: "123" "45"
  EXPECT_EQ(tok->encode("hello!"), (Ids{11, 17}));
  EXPECT_EQ(tok->encode("caf\xC3\xA9"), (Ids{26}));
  EXPECT_EQ(tok->encode("held"), (Ids{0, 1, 2, 7}));  // no merges: byte characters
  EXPECT_EQ(tok->encode("hello<|end|>"), (Ids{11, 29}));
}

TEST(BpeJson, RefusesOtherKindsWithTheField) {
  EXPECT_NE(bpe_error("not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})")
                .find("model.type 'WordPiece' is not supported"),
            std::string::npos);
  const std::string llama2_style = R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
      "pre_tokenizer": {"type": "Metaspace", "replacement": "▁"}})";
  EXPECT_NE(bpe_error(llama2_style).find("pre-tokenizer 'Metaspace' is not supported"),
            std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}}, "pre_tokenizer": null})")
                .find("no ByteLevel step"),
            std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]},
      "pre_tokenizer": {"type": "ByteLevel"}})")
                .find("model.merges[0]"),
            std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "BPE", "vocab": {}}})").find("model.vocab"),
            std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}},
      "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(unclosed"}}})")
                .find("does not compile"),
            std::string::npos);
  EXPECT_NE(bpe_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}},
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": "yes"}})")
                .find("wrong type"),
            std::string::npos);
}

// --- SentencePiece, trained at test time ---------------------------------------------------

TEST(SentencePiece, TrainedModelRoundTripsAndMatchesTheLibrary) {
  const std::string path = testing::sentencepiece_model_path();
  const auto tok = load_tokenizer(path);
  EXPECT_EQ(tok->kind(), "sentencepiece");
  EXPECT_EQ(tok->vocab_size(), 400u);

  sentencepiece::SentencePieceProcessor sp;
  ASSERT_TRUE(sp.Load(path).ok());
  for (const char* s : {"the quiet river found another garden.", "Request 42: hello world",
                        "Question 7: every teacher", "caf\xC3\xA9 \xE6\x97\xA5", "  two  spaces"}) {
    SCOPED_TRACE(s);
    std::vector<int> expected;
    ASSERT_TRUE(sp.Encode(s, &expected).ok());
    EXPECT_EQ(tok->encode(s), expected);
    EXPECT_EQ(tok->count(s), static_cast<int64_t>(expected.size()));
  }
  // Known round trips (SentencePiece normalises runs of spaces, so those are left out).
  for (const char* s : {"the quiet river found another garden.", "Request 42: hello world",
                        "hello servebench world"})
    EXPECT_EQ(tok->decode(tok->encode(s)), s);
  // The user-defined symbol is one piece with a known id: after <unk> <s> </s>.
  const auto ids = tok->encode("servebench");
  EXPECT_NE(std::find(ids.begin(), ids.end(), 3), ids.end());
  EXPECT_EQ(tok->decode({3}), "servebench");
  // Common words of the training text are single pieces: fewer tokens than characters.
  EXPECT_LT(tok->count("the teacher watched the mountain"), 12);
}

TEST(Tokenizers, ConcurrentConstUse) {
  const auto sp = load_tokenizer(testing::sentencepiece_model_path());
  const auto bpe = parse_bpe_tokenizer_json(testing::kHandBpeJson);
  std::vector<std::string> texts;
  for (int i = 0; i < 50; ++i)
    texts.push_back("hello world " + std::to_string(i) + " the quiet caf\xC3\xA9 river");
  std::vector<int64_t> expected;
  for (const auto& t : texts) expected.push_back(sp->count(t) * 1000 + bpe->count(t));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 20; ++rep)
        for (size_t i = 0; i < texts.size(); ++i)
          mismatches[k] += sp->count(texts[i]) * 1000 + bpe->count(texts[i]) != expected[i];
    });
  for (auto& t : threads) t.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// --- loading files -------------------------------------------------------------------------

TEST(LoadTokenizer, DetectsTheKindFromTheContent) {
  EXPECT_EQ(
      load_tokenizer(testing::write_temp_file("tokenizer.json", testing::kHandBpeJson))->kind(),
      "bpe");
  EXPECT_EQ(load_tokenizer(testing::sentencepiece_model_path())->kind(), "sentencepiece");
}

TEST(LoadTokenizer, WrongKindOrUnreadableIsAUsageErrorNamingThePath) {
  const std::string text = testing::write_temp_file("notes.txt", "hello world\nnot a model\n");
  std::string msg = load_error(text);
  EXPECT_NE(msg.find("--tokenizer '" + text + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("neither a SentencePiece tokenizer.model nor a Hugging Face tokenizer.json"),
            std::string::npos)
      << msg;
  const std::string wordpiece = testing::write_temp_file(
      "wordpiece.json", R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}})");
  msg = load_error(wordpiece);
  EXPECT_NE(msg.find("model.type 'WordPiece' is not supported"), std::string::npos) << msg;
  msg = load_error(testing::write_temp_file("empty.model", ""));
  EXPECT_NE(msg.find("the file is empty"), std::string::npos) << msg;
  msg = load_error("/nonexistent/tokenizer.model");
  EXPECT_NE(msg.find("cannot read the file"), std::string::npos) << msg;
  msg = load_error(testing::tokenizer_temp_dir().string());
  EXPECT_NE(msg.find("a directory"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sb::tokenizer
