#include "quality/exact_match.h"

#include <cstring>

#include "quality/tokenizer.h"

namespace sb::quality {

std::string normalize_answer(std::string_view text) {
  static constexpr const char* kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  std::string s;
  s.reserve(text.size());
  for (char c : text) {
    if (c != '\0' && std::strchr(kPunctuation, c)) continue;
    s += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  std::string out;
  for (const std::string& w : split_whitespace(s)) {
    if (w == "a" || w == "an" || w == "the") continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

bool exact_match(std::string_view hypothesis, std::string_view reference) {
  return normalize_answer(hypothesis) == normalize_answer(reference);
}

}  // namespace sb::quality
