#pragma once
// Parses a target base URL such as "http://host:8000/v1".
#include <cstdint>
#include <string>
#include <string_view>

namespace sb::net {

struct Url {
  bool tls = false;         // https
  std::string host;         // without brackets for IPv6 literals
  uint16_t port = 0;        // explicit, or 80 / 443
  std::string path_prefix;  // "" or "/v1" (no trailing slash)

  // Host header value: host[:port] (brackets around IPv6), port omitted when default.
  std::string host_header() const;
  // path_prefix + path; `path` must start with '/'.
  std::string target(std::string_view path) const;
  std::string to_string() const;  // normalised URL
};

// Throws sb::Error (usage) naming --base-url and the accepted form on bad input.
Url parse_url(std::string_view text);

}  // namespace sb::net
