#pragma once
// JSON string escaping for the hand-written (nlohmann-free) hot-path writers: request bodies
// (protocol/openai_common.h) and requests.jsonl lines.
#include <string>
#include <string_view>

namespace sb {

// Appends `s` to `out` as a quoted JSON string: '"' and '\\' escaped, control characters
// (< 0x20) as \n, \r, \t, \b, \f or \u00XX, valid UTF-8 copied as is, and every byte that is
// not part of a well-formed UTF-8 sequence (stray continuation, overlong form, surrogate,
// above U+10FFFF, truncated sequence) replaced by U+FFFD. The result is always valid UTF-8
// and valid JSON, whatever the input bytes.
void append_json_string(std::string& out, std::string_view s);

}  // namespace sb
