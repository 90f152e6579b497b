#pragma once
// Tokenizer files the tests build themselves (nothing is downloaded):
//   - a SentencePiece model trained at test time by the library's own trainer on a small
//     English text (the synthetic prompt vocabulary), vocabulary 400, one user-defined
//     symbol "servebench" (id 3, after <unk> <s> </s>);
//   - a small byte-level BPE tokenizer.json written by hand (kHandBpeJson), GPT-2 style,
//     whose encodings are computed by hand in tokenizer_test.cc.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>

#include <sentencepiece_trainer.h>

namespace sb::testing {

inline std::filesystem::path tokenizer_temp_dir() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("servebench-tok-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string training_text() {
  // Sentences over the words of the synthetic prompt generator, so the model covers them.
  static const char* kWords[] = {
      "the",       "your",     "every",    "this",    "that",     "each",    "one",
      "our",       "their",    "some",     "another", "my",       "quiet",   "bright",
      "careful",   "ancient",  "small",    "large",   "curious",  "busy",    "gentle",
      "distant",   "early",    "late",     "simple",  "strange",  "patient", "heavy",
      "river",     "teacher",  "garden",   "engine",  "village",  "letter",  "window",
      "market",    "student",  "mountain", "library", "kitchen",  "doctor",  "bridge",
      "farmer",    "journey",  "found",    "carried", "watched",  "built",   "described",
      "opened",    "followed", "repaired", "slowly",  "quickly",  "near",    "behind",
      "across",    "Request",  "Shared",   "context", "Question", "hello",   "world",
      "servebench"};
  constexpr size_t n = sizeof kWords / sizeof kWords[0];
  std::string text;
  uint64_t x = 12345;
  for (int line = 0; line < 600; ++line) {
    for (int w = 0; w < 12; ++w) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      text += kWords[(x >> 33) % n];
      text += w == 11 ? ".\n" : " ";
    }
    text += "Request " + std::to_string(line) + ": 0123456789, (a) [b] {c}; 'd' \"e\"!?\n";
    text += "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz\n";  // every letter known
  }
  return text;
}

// Trains the model once per process (a fraction of a second) and returns its path.
inline std::string sentencepiece_model_path() {
  static std::once_flag once;
  static std::string path;
  std::call_once(once, [] {
    const auto dir = tokenizer_temp_dir();
    const auto corpus = dir / "corpus.txt";
    std::ofstream(corpus) << training_text();
    const std::string prefix = (dir / "sp").string();
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--input=" + corpus.string() + " --model_prefix=" + prefix +
        " --vocab_size=400 --model_type=bpe --character_coverage=1.0"
        " --user_defined_symbols=servebench --minloglevel=2 --num_threads=1");
    if (!status.ok())
      throw std::runtime_error("SentencePiece training failed: " + status.ToString());
    path = prefix + ".model";
  });
  return path;
}

// A GPT-2-style byte-level BPE. Byte-level forms: ' ' -> "Ġ", '\n' -> "Ċ", 'é' (C3 A9) ->
// "Ã©". Merge ranks are the list positions 0..12.
inline constexpr const char* kHandBpeJson = R"json({
  "version": "1.0",
  "added_tokens": [{"id": 29, "content": "<|end|>", "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true,
                    "use_regex": true},
  "post_processor": null,
  "decoder": {"type": "ByteLevel"},
  "model": {
    "type": "BPE", "unk_token": "<unk>",
    "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4, "w": 5, "r": 6, "d": 7, "he": 8,
              "ll": 9, "hell": 10, "hello": 11, "Ġw": 12, "or": 13, "Ġwor": 14, "Ġworl": 15,
              "Ġworld": 16, "!": 17, "Ã": 18, "©": 19, "Ã©": 20, "c": 21, "a": 22, "f": 23,
              "ca": 24, "caf": 25, "cafÃ©": 26, "<unk>": 27, "Ċ": 28, "123": 30, "45": 31},
    "merges": ["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "Ġwor l", "Ġworl d",
               "Ã ©", "c a", "ca f", ["caf", "Ã©"]]
  }
})json";

// The same vocabulary as Llama-3 loads it: a Split regex (Llama-3's), then ByteLevel
// without its own regex, ignore_merges, and no merges at all (whole pre-tokens are looked
// up; anything else falls back to byte characters).
inline constexpr const char* kLlama3StyleJson = R"json({
  "added_tokens": [{"id": 29, "content": "<|end|>", "special": true}],
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
     "behavior": "Isolated", "invert": false},
    {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]},
  "model": {
    "type": "BPE", "unk_token": "<unk>", "ignore_merges": true, "merges": [],
    "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4, "w": 5, "r": 6, "d": 7, "he": 8,
              "ll": 9, "hell": 10, "hello": 11, "Ġw": 12, "or": 13, "Ġwor": 14, "Ġworl": 15,
              "Ġworld": 16, "!": 17, "Ã": 18, "©": 19, "Ã©": 20, "c": 21, "a": 22, "f": 23,
              "ca": 24, "caf": 25, "cafÃ©": 26, "<unk>": 27, "Ċ": 28, "123": 30, "45": 31}
  }
})json";

inline std::string write_temp_file(const std::string& name, const std::string& content) {
  const auto p = tokenizer_temp_dir() / name;
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

}  // namespace sb::testing
