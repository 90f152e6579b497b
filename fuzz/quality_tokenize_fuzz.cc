// Fuzz target: the quality tokenizers (src/quality/tokenizer.h: 13a, zh, char) and the
// scorers over arbitrary bytes (invalid UTF-8 included). Checked: no token is empty or holds
// whitespace; the regular-expression part that 13a and zh share equals sacreBLEU's four
// re.sub rules run by std::regex (13a and zh are *not* idempotent, in sacreBLEU either:
// ",.3" gives [",", ".3"] and ", .3" gives [",", ".", "3"]); char tokens rebuild the text
// without whitespace; a text scored against itself gets exact match and full chrF when it
// has any non-space character; scores stay in range.
#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "quality/request_quality.h"
#include "quality/tokenizer.h"
#include "quality/utf8.h"

namespace {

using sb::quality::Tokenize;

bool clean(const std::vector<std::string>& tokens) {
  for (const auto& t : tokens) {
    if (t.empty()) return false;
    for (char32_t c : sb::quality::decode_utf8(t))
      if (sb::quality::is_space(c)) return false;
  }
  return true;
}

// sacreBLEU's TokenizerRegexp: its four patterns (the first class spelled in hex), over bytes (as
// tokenize_regexp works: every class it names is ASCII).
std::vector<std::string> reference_regexp(const std::string& text) {
  static const std::pair<std::regex, const char*> rules[] = {
      {std::regex(R"(([\x7B-\x7E\x5B-\x60\x20-\x26\x28-\x2B\x3A-\x40\x2F]))"), " $1 "},
      {std::regex(R"(([^0-9])([.,]))"), "$1 $2 "},
      {std::regex(R"(([.,])([^0-9]))"), " $1 $2"},
      {std::regex(R"(([0-9])(-))"), "$1 $2 "},
  };
  std::string s = text;
  for (const auto& [re, with] : rules) s = std::regex_replace(s, re, with);
  return sb::quality::split_whitespace(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto t13a = sb::quality::tokenize_13a(text);
  FUZZ_CHECK(clean(t13a));
  const auto zh = sb::quality::tokenize_zh(text);
  FUZZ_CHECK(clean(zh));
  FUZZ_CHECK(sb::quality::tokenize_regexp(text) == reference_regexp(std::string(text)));
  const auto chars = sb::quality::tokenize_char(text);
  FUZZ_CHECK(clean(chars));
  std::string rebuilt, expected;
  for (const auto& c : chars) rebuilt += c;
  for (char32_t c : sb::quality::decode_utf8(text))
    if (!sb::quality::is_space(c)) sb::quality::append_utf8(expected, c);
  FUZZ_CHECK(rebuilt == expected);

  // Score the first half against the second, and the text against itself.
  const std::string_view a = text.substr(0, size / 2), b = text.substr(size / 2);
  for (Tokenize m : {Tokenize::automatic, Tokenize::t13a, Tokenize::zh, Tokenize::chr}) {
    const auto q = sb::quality::score_request(a, b, m);
    FUZZ_CHECK(q.bleu >= 0 && q.bleu <= 100 + 1e-9 && q.chrf >= 0 && q.chrf <= 100 + 1e-9);
    FUZZ_CHECK(q.rouge_l >= 0 && q.rouge_l <= 1 + 1e-12);
  }
  const auto self = sb::quality::score_request(text, text);
  FUZZ_CHECK(self.exact_match);
  if (!expected.empty()) FUZZ_CHECK(self.chrf > 100 - 1e-9);
  return 0;
}
