#pragma once
// The project's one blocking HTTP/1.1 request, for everything that is not load: telemetry
// scrapes and pushes, the launcher's readiness probe (plan/launcher.h). It runs the project's
// client (connection.h) on a private event loop on the calling thread, never on the load
// engine's loops. One whole-request deadline; a body limit (bigger -> failure).
#include <cstddef>
#include <string>

#include "common/clock.h"

namespace sb::net {

struct HttpFetchOptions {
  std::string method = "GET";
  std::string body;  // sent with POST / PUT
  Nanos timeout = std::chrono::seconds(5);
  size_t max_body_bytes = size_t{8} << 20;
  std::string accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1";
};

struct HttpFetchResult {
  bool ok = false;  // a complete response with a 2xx status
  int status = 0;
  std::string content_type;
  std::string body;
  std::string error;  // why !ok, one line ("timeout: ...", "HTTP 404", "body over 8388608 bytes")
  double elapsed_ms = 0;
};

// `url`: http(s)://host:port/path[?query]. Never throws for network trouble or a bad URL.
HttpFetchResult http_fetch(const std::string& url, const HttpFetchOptions& options = {});

}  // namespace sb::net
