#pragma once
// The one limit on a request's error text (RequestRecord::error, docs/architecture.md): a
// message, or an error response's body, is kept to its first 512 bytes. Cut at a byte, not a
// character: requests.jsonl replaces a cut UTF-8 sequence with U+FFFD.
#include <cstddef>
#include <string>
#include <string_view>

namespace sb {

inline constexpr size_t kErrorMessageBytes = 512;

// The first kErrorMessageBytes bytes of `message`.
inline std::string clip_error(std::string_view message) {
  return std::string(message.substr(0, kErrorMessageBytes));
}

// Appends as much of `piece` to `out` as keeps `out` within kErrorMessageBytes (a body that
// arrives in pieces).
inline void append_clipped(std::string& out, std::string_view piece) {
  if (out.size() < kErrorMessageBytes) out.append(piece.substr(0, kErrorMessageBytes - out.size()));
}

}  // namespace sb
