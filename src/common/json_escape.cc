#include "common/json_escape.h"

#include <array>

namespace sb {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the well-formed UTF-8 sequence starting at s[i] (lead byte >= 0x80), or 0.
// Follows the table of well-formed byte sequences in the Unicode standard (§3.9, D92).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) -> unsigned char {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
  };
  const unsigned char c = at(0);
  if (c >= 0xC2 && c <= 0xDF) return is_cont(at(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
    return at(1) >= lo && at(1) <= hi && is_cont(at(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;  // no overlong forms
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    return at(1) >= lo && at(1) <= hi && is_cont(at(2)) && is_cont(at(3)) ? 4 : 0;
  }
  return 0;
}

// Bytes copied as they are: ASCII from the space up, but the quote and the backslash.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[static_cast<size_t>(c)] = c != '"' && c != '\\';
  return plain;
}();

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + s.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // A run of plain ASCII (no quote, backslash or control character) is copied at once.
    size_t run = i;
    while (run < s.size() && kPlain[static_cast<unsigned char>(s[run])]) ++run;
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      if (i == s.size()) break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (const size_t n = utf8_sequence_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
      } else {
        out += kReplacement;
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:  // the other control characters (< 0x20)
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    ++i;
  }
  out += '"';
}

}  // namespace sb
