#pragma once
// A compiled PCRE2 pattern (UTF + Unicode properties, JIT when available) that splits text
// around its matches, as Hugging Face's `Split` pre-tokenizer does. Const and shareable:
// every call allocates its own match data.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sb::tokenizer {

class RegexSplitter {
 public:
  // Throws sb::Error (usage) with PCRE2's message and offset for a pattern it cannot compile.
  explicit RegexSplitter(const std::string& pattern);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // Appends to `out` the pieces of `text`: the gaps between matches, and each match as its
  // own piece unless `remove` (behaviour "Isolated" / "Removed"). Empty pieces are never
  // appended. Text that is not valid UTF-8 (or a match that exhausts PCRE2's limits) leaves
  // the rest of `text` as one piece.
  void split(std::string_view text, bool remove, std::vector<std::string_view>& out) const;

 private:
  struct Code;
  std::unique_ptr<Code> code_;
};

// Hugging Face's ByteLevel(use_regex=true) pattern, GPT-2's.
inline constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace sb::tokenizer
