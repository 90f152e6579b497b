#pragma once
// UTF-8 decoding for the quality scorers. Scores count Unicode code points (chrF character
// n-grams, the zh and char tokenizers), as sacreBLEU does on Python strings.
#include <string>
#include <string_view>

namespace sb::quality {

// Decodes UTF-8. Each invalid or truncated sequence, overlong form, surrogate or value above
// U+10FFFF becomes one U+FFFD, and decoding continues at the next byte.
std::u32string decode_utf8(std::string_view text);

// Appends the UTF-8 encoding of `cp` (values above U+10FFFF and surrogates as U+FFFD).
void append_utf8(std::string& out, char32_t cp);

// Python's str.isspace() for one code point (the separators str.split() uses): ASCII
// \t \n \v \f \r space, U+001C..U+001F, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000.
bool is_space(char32_t cp);

}  // namespace sb::quality
