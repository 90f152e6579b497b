#pragma once
// Word tokenizers for BLEU and ROUGE-L, compatible with sacreBLEU's:
//   13a   mteval-v13a (sacreBLEU's default): drop "<skipped>", join "-\n", newlines to spaces,
//         unescape &quot; &amp; &lt; &gt;, then split punctuation and symbols off words
//         (periods and commas only when not between digits, a dash after a digit), then split
//         on whitespace (Python str.split(): Unicode whitespace).
//   zh    sacreBLEU's `zh`: every code point in its Chinese ranges becomes its own token, the
//         rest is tokenized as 13a's regular-expression part (no unescaping). The ranges are
//         sacreBLEU's table as Python evaluates it, including its quirk: the entries written
//         '\u20000'..'\u2a6d6' and '\u2f800'..'\u2fa1d' compare as U+2001..U+2A6D and
//         U+2F81..U+2FA1 (so general punctuation such as U+2014 is split off too).
//   chr   sacreBLEU's `char`: every non-whitespace code point is a token.
//   automatic  zh when the text is mostly CJK (see mostly_cjk()), else 13a.
// Invalid UTF-8 is read as U+FFFD (utf8.h). Tokens are returned as UTF-8 strings.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::quality {

enum class Tokenize { automatic, t13a, zh, chr };

// "auto", "13a", "zh", "char".
std::string_view to_string(Tokenize t);
// Inverse of to_string; nullopt for another name.
std::optional<Tokenize> tokenize_from_string(std::string_view name);

// True when more than half of the non-whitespace code points are CJK: Han ideographs
// (U+3400..U+4DBF, U+4E00..U+9FFF, U+F900..U+FAFF, U+20000..U+3134F), kana (U+3040..U+30FF,
// U+31F0..U+31FF, U+FF66..U+FF9F), Hangul (U+1100..U+11FF, U+AC00..U+D7AF) or CJK
// punctuation (U+3000..U+303F, U+FF00..U+FF65).
bool mostly_cjk(std::string_view text);

// `automatic` resolved for one hypothesis/reference pair: decided on the reference (on the
// hypothesis when the reference is empty), so both sides are tokenized alike.
Tokenize resolve(Tokenize mode, std::string_view reference, std::string_view hypothesis);

// Tokenizes `text` (`automatic` is decided on `text` itself).
std::vector<std::string> tokenize(std::string_view text, Tokenize mode);

// The pieces, for tests and the fuzz target.
std::vector<std::string> tokenize_13a(std::string_view text);
std::vector<std::string> tokenize_zh(std::string_view text);
std::vector<std::string> tokenize_char(std::string_view text);
// sacreBLEU's TokenizerRegexp (the part 13a and zh share), ending in the whitespace split.
std::vector<std::string> tokenize_regexp(std::string_view text);
// sacreBLEU's zh character table (with the quirk described above).
bool is_zh_char(char32_t cp);
// Python's str.split() on Unicode whitespace.
std::vector<std::string> split_whitespace(std::string_view text);

}  // namespace sb::quality
