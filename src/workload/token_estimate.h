#pragma once
// Token counts without a tokenizer: the usual rule of thumb of 1 token per 4
// characters of English text (counting bytes of UTF-8). Every count made this way
// is reported as an estimate; the tokenizer issue replaces it with exact counts.
#include <cstdint>
#include <string_view>

namespace sb::workload {

inline constexpr int64_t kCharsPerToken = 4;

// ceil(bytes / 4): 0 for no bytes, at least 1 otherwise.
int64_t estimate_tokens_from_bytes(uint64_t bytes);
inline int64_t estimate_tokens(std::string_view text) {
  return estimate_tokens_from_bytes(text.size());
}

}  // namespace sb::workload
