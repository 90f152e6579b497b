#include "net/url.h"

#include <charconv>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::net {

std::string url_for_messages(std::string_view text) {
  std::string head;
  if (const size_t at = text.rfind('@'); at != std::string_view::npos) {
    const size_t scheme = text.find("://");
    head = fmt::format("{}***@", scheme < at ? text.substr(0, scheme + 3) : "");
    text = text.substr(at + 1);
  }
  const size_t q = text.find_first_of("?#");
  return q == std::string_view::npos ? head + std::string(text)
                                     : head + std::string(text.substr(0, q)) + "?...";
}

namespace {

// It goes to stderr, logs and MPI messages: the URL as url_for_messages shows it.
Error bad_url(std::string_view text, std::string_view why) {
  return usage_error(
      fmt::format("--base-url '{}': {}; expected http://HOST[:PORT][/PREFIX] or https://...",
                  url_for_messages(text), why));
}

}  // namespace

Url parse_url(std::string_view text) {
  Url url;
  std::string_view rest = text;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    url.tls = true;
    rest.remove_prefix(8);
  } else {
    throw bad_url(text, "the scheme must be http or https");
  }
  if (rest.find('@') != std::string_view::npos)
    throw bad_url(text,
                  "credentials in the URL are not supported (give a key with --api-key-env or "
                  "--api-key-file, or a header with -H)");
  // Host and prefix go verbatim into the request head: a space or control byte would break it.
  for (const unsigned char c : rest)
    if (c <= 0x20 || c == 0x7f)
      throw bad_url(text, "spaces and control characters are not allowed");
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos)
    throw bad_url(text, "a query or fragment is not allowed");

  std::string_view port_text;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) throw bad_url(text, "unclosed '[' in an IPv6 address");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') throw bad_url(text, "junk after the IPv6 address");
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  // Brackets only around a whole IPv6 address; a bare ':' would be read back as a port.
  if (url.host.find_first_of(authority.starts_with('[') ? "[]" : "[]:") != std::string::npos)
    throw bad_url(text, "bad host (an IPv6 address goes in brackets: http://[::1]:8000)");
  if (url.host.empty()) throw bad_url(text, "the host is missing");
  if (port_text.empty()) {
    url.port = url.tls ? 443 : 80;
  } else {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || value == 0 ||
        value > 65535)
      throw bad_url(text, fmt::format("bad port '{}'", port_text));
    url.port = static_cast<uint16_t>(value);
  }
  while (path.ends_with('/')) path.remove_suffix(1);
  url.path_prefix = std::string(path);
  return url;
}

std::string Url::host_header() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string h = v6 ? "[" + host + "]" : host;
  if (port != (tls ? 443 : 80)) h += fmt::format(":{}", port);
  return h;
}

std::string Url::target(std::string_view path) const {
  return path_prefix + std::string(path);
}

std::string Url::to_string() const {
  return fmt::format("{}://{}{}", tls ? "https" : "http", host_header(), path_prefix);
}

}  // namespace sb::net
