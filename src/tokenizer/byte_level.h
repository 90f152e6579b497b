#pragma once
// GPT-2's byte-level alphabet (Hugging Face `ByteLevel`): every byte maps to one printable
// Unicode character, so that BPE works on text of any bytes. Bytes '!'..'~', 0xA1..0xAC and
// 0xAE..0xFF map to the code point of the same value; the other 68 bytes (controls, space,
// 0x7F..0xA0, 0xAD) map to U+0100, U+0101, ... in byte order (space -> U+0120 'Ġ',
// '\n' -> U+010A 'Ċ').
#include <optional>
#include <string>
#include <string_view>

namespace sb::tokenizer {

// The byte-level form of `bytes`: each byte replaced by its character, UTF-8 encoded.
std::string to_byte_level(std::string_view bytes);

// The bytes of a byte-level string; nullopt when it holds a character outside the alphabet.
std::optional<std::string> from_byte_level(std::string_view text);

// The UTF-8 encoding of one byte's character.
std::string byte_char(unsigned char byte);

}  // namespace sb::tokenizer
