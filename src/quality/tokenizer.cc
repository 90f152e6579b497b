#include "quality/tokenizer.h"

#include "quality/utf8.h"

namespace sb::quality {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The first rule's class: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
bool is_split_symbol(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == 0x2F;
}

// Python re.sub with a two-character pattern (X)(Y): leftmost, non-overlapping matches,
// scanned left to right. Working on bytes gives the same result as on code points because
// every character the classes name is ASCII and [^0-9] never ends inside a multi-byte
// sequence differently (a continuation byte is never '.', ',' or '-').
template <typename First, typename Second, typename Emit>
std::string sub_pairs(const std::string& s, First first, Second second, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
      emit(out, s[i], s[i + 1]);
      i += 2;
    } else {
      out.push_back(s[i]);
      ++i;
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  if (s.find(from) == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out.append(to);
  }
  out.append(s, pos);
  s = std::move(out);
}

bool in(char32_t c, char32_t lo, char32_t hi) {
  return c >= lo && c <= hi;
}

bool is_cjk(char32_t c) {
  return in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) || in(c, 0xF900, 0xFAFF) ||
         in(c, 0x20000, 0x3134F) || in(c, 0x3040, 0x30FF) || in(c, 0x31F0, 0x31FF) ||
         in(c, 0xFF00, 0xFF9F) || in(c, 0x1100, 0x11FF) || in(c, 0xAC00, 0xD7AF) ||
         in(c, 0x3000, 0x303F);
}

}  // namespace

std::string_view to_string(Tokenize t) {
  switch (t) {
    case Tokenize::automatic:
      return "auto";
    case Tokenize::t13a:
      return "13a";
    case Tokenize::zh:
      return "zh";
    case Tokenize::chr:
      return "char";
  }
  return "auto";
}

std::optional<Tokenize> tokenize_from_string(std::string_view name) {
  for (Tokenize t : {Tokenize::automatic, Tokenize::t13a, Tokenize::zh, Tokenize::chr})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

std::vector<std::string> split_whitespace(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    bool space = false;
    if (b < 0x80) {
      space = is_space(b);
    } else {
      len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
      if (i + len > text.size()) len = 1;
      const std::u32string cp = decode_utf8(text.substr(i, len));
      if (cp.size() == 1)
        space = is_space(cp[0]);
      else
        len = 1;  // invalid: keep the byte as part of a token
    }
    if (space) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.append(text.substr(i, len));
    }
    i += len;
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> tokenize_regexp(std::string_view text) {
  std::string s;
  s.reserve(text.size() * 2);
  for (char c : text) {
    if (is_split_symbol(c)) {
      s += ' ';
      s += c;
      s += ' ';
    } else {
      s += c;
    }
  }
  auto period_comma = [](char c) { return c == '.' || c == ','; };
  auto not_digit = [](char c) { return !is_digit(c); };
  s = sub_pairs(s, not_digit, period_comma, [](std::string& o, char a, char b) {
    o += a;
    o += ' ';
    o += b;
    o += ' ';
  });
  s = sub_pairs(s, period_comma, not_digit, [](std::string& o, char a, char b) {
    o += ' ';
    o += a;
    o += ' ';
    o += b;
  });
  s = sub_pairs(
      s, is_digit, [](char c) { return c == '-'; },
      [](std::string& o, char a, char b) {
        o += a;
        o += ' ';
        o += b;
        o += ' ';
      });
  return split_whitespace(s);
}

std::vector<std::string> tokenize_13a(std::string_view text) {
  std::string s(text);
  replace_all(s, "<skipped>", "");
  replace_all(s, "-\n", "");
  replace_all(s, "\n", " ");
  replace_all(s, "&quot;", "\"");
  replace_all(s, "&amp;", "&");
  replace_all(s, "&lt;", "<");
  replace_all(s, "&gt;", ">");
  return tokenize_regexp(" " + s + " ");
}

bool is_zh_char(char32_t c) {
  return in(c, 0x3400, 0x4DB5) || in(c, 0x4E00, 0x9FA5) || in(c, 0x9FA6, 0x9FBB) ||
         in(c, 0xF900, 0xFA2D) || in(c, 0xFA30, 0xFA6A) || in(c, 0xFA70, 0xFAD9) ||
         in(c, 0x2001, 0x2A6D) || in(c, 0x2F81, 0x2FA1) || in(c, 0xFF00, 0xFFEF) ||
         in(c, 0x2E80, 0x2EFF) || in(c, 0x3000, 0x303F) || in(c, 0x31C0, 0x31EF) ||
         in(c, 0x2F00, 0x2FDF) || in(c, 0x2FF0, 0x2FFF) || in(c, 0x3100, 0x312F) ||
         in(c, 0x31A0, 0x31BF) || in(c, 0xFE10, 0xFE1F) || in(c, 0xFE30, 0xFE4F) ||
         in(c, 0x2600, 0x26FF) || in(c, 0x2700, 0x27BF) || in(c, 0x3200, 0x32FF) ||
         in(c, 0x3300, 0x33FF);
}

std::vector<std::string> tokenize_zh(std::string_view text) {
  // (sacreBLEU strips the line first; the whitespace split at the end makes that moot.)
  const std::u32string cps = decode_utf8(text);
  std::string s;
  s.reserve(text.size() * 2);
  for (char32_t c : cps) {
    if (is_zh_char(c)) {
      s += ' ';
      append_utf8(s, c);
      s += ' ';
    } else {
      append_utf8(s, c);
    }
  }
  return tokenize_regexp(s);
}

std::vector<std::string> tokenize_char(std::string_view text) {
  std::vector<std::string> out;
  for (char32_t c : decode_utf8(text)) {
    if (is_space(c)) continue;
    std::string t;
    append_utf8(t, c);
    out.push_back(std::move(t));
  }
  return out;
}

bool mostly_cjk(std::string_view text) {
  size_t cjk = 0, other = 0;
  for (char32_t c : decode_utf8(text)) {
    if (is_space(c)) continue;
    if (is_cjk(c))
      ++cjk;
    else
      ++other;
  }
  return cjk > other;
}

Tokenize resolve(Tokenize mode, std::string_view reference, std::string_view hypothesis) {
  if (mode != Tokenize::automatic) return mode;
  return mostly_cjk(reference.empty() ? hypothesis : reference) ? Tokenize::zh : Tokenize::t13a;
}

std::vector<std::string> tokenize(std::string_view text, Tokenize mode) {
  switch (resolve(mode, text, text)) {
    case Tokenize::zh:
      return tokenize_zh(text);
    case Tokenize::chr:
      return tokenize_char(text);
    default:
      return tokenize_13a(text);
  }
}

}  // namespace sb::quality
