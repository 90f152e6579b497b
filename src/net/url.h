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

// `text` (a URL, maybe not a valid one) as messages show it: everything up to its last '@'
// masked ("http://***@host", a password may hold '/', ' ' or ':'), its query and fragment as
// "?..." (any of their values may be a key).
std::string url_for_messages(std::string_view text);

// Throws sb::Error (usage) naming --base-url and the accepted form on bad input; the message
// shows the URL as url_for_messages does.
// Credentials (user:pass@) and a query are refused: a key goes in --api-key-env/-file or -H.
Url parse_url(std::string_view text);

}  // namespace sb::net
