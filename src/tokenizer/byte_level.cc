#include "tokenizer/byte_level.h"

#include <array>
#include <cstdint>

namespace sb::tokenizer {
namespace {

bool maps_to_itself(unsigned b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
  std::array<uint32_t, 256> code_point{};  // byte -> code point
  std::array<int, 512> byte_of{};          // code point (< 512) -> byte, -1 if none
  Tables() {
    byte_of.fill(-1);
    uint32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) {
      code_point[b] = maps_to_itself(b) ? b : next++;
      byte_of[code_point[b]] = static_cast<int>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else {  // the alphabet stays below U+0800
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::string byte_char(unsigned char byte) {
  std::string s;
  append_utf8(tables().code_point[byte], s);
  return s;
}

std::string to_byte_level(std::string_view bytes) {
  const Tables& t = tables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(t.code_point[b], out);
  return out;
}

std::optional<std::string> from_byte_level(std::string_view text) {
  const Tables& t = tables();
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c0 = static_cast<unsigned char>(text[i]);
    uint32_t cp;
    if (c0 < 0x80) {
      cp = c0;
      i += 1;
    } else if ((c0 & 0xE0) == 0xC0 && i + 1 < text.size() &&
               (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80) {
      cp = ((c0 & 0x1Fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu);
      i += 2;
    } else {
      return std::nullopt;
    }
    if (cp >= t.byte_of.size() || t.byte_of[cp] < 0) return std::nullopt;
    out += static_cast<char>(t.byte_of[cp]);
  }
  return out;
}

}  // namespace sb::tokenizer
