#pragma once
// Buffers reused message after message (a connection's request bytes, a recorder's body, an
// SSE parser's event) keep the capacity of the largest message they ever held: 1,000
// connections that each once saw a 64 MiB body would hold 64 GiB. clear_and_trim() empties
// such a buffer between messages and, above kBufferKeepBytes of capacity, gives the memory
// back, so that only a message in progress is ever large.
#include <cstddef>
#include <string>

namespace sb {

inline constexpr size_t kBufferKeepBytes = size_t{256} << 10;

// Empties `s`; when its capacity is above `keep_bytes`, releases it (capacity back to the
// small-string size). Below, the capacity stays for the next message (no allocation churn).
inline void clear_and_trim(std::string& s, size_t keep_bytes = kBufferKeepBytes) {
  if (s.capacity() > keep_bytes)
    std::string().swap(s);
  else
    s.clear();
}

}  // namespace sb
