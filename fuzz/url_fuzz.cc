// Fuzz target: net::parse_url (--base-url). Checked: it returns a URL or throws
// sb::Error; a parsed URL has a host, a port, a prefix that is empty or starts
// with '/' without a trailing one, no byte that would break the HTTP request
// head it is written into (control characters, spaces), and it survives
// to_string() -> parse_url() unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "fuzz_check.h"
#include "net/url.h"

namespace {

bool head_safe(std::string_view s) {
  for (unsigned char c : s)
    if (c <= 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sb::net::Url url;
  try {
    url = sb::net::parse_url(text);
  } catch (const sb::Error&) {
    return 0;
  }
  FUZZ_CHECK(!url.host.empty());
  FUZZ_CHECK(url.port != 0);
  FUZZ_CHECK(url.path_prefix.empty() ||
             (url.path_prefix.front() == '/' && url.path_prefix.back() != '/'));
  FUZZ_CHECK(head_safe(url.host));
  FUZZ_CHECK(head_safe(url.path_prefix));
  FUZZ_CHECK(head_safe(url.host_header()));
  sb::net::Url again;
  try {
    again = sb::net::parse_url(url.to_string());
  } catch (const sb::Error&) {
    FUZZ_CHECK(!"to_string() of a parsed URL must parse");
  }
  FUZZ_CHECK(again.tls == url.tls && again.host == url.host && again.port == url.port &&
             again.path_prefix == url.path_prefix);
  FUZZ_CHECK(url.target("/x") == url.path_prefix + "/x");
  return 0;
}
