#pragma once
// Error classes of docs/architecture.md. Every request ends in exactly one class; "ok" is success.
#include <array>
#include <optional>
#include <string_view>

namespace sb {

enum class ErrorClass : unsigned char {
  ok,
  overloaded,           // HTTP 503 or 529, or an in-stream overloaded error (TGI, Anthropic)
  rate_limited,         // HTTP 429
  timeout,              // HTTP 408 from the server
  timeout_connect,      // client: TCP/TLS connect did not finish in time
  timeout_first_token,  // client: no text-bearing event within the first-token timeout
  timeout_idle,         // client: gap between two reads exceeded the idle timeout
  timeout_total,        // client: the whole request exceeded the total timeout
  validation,           // HTTP 400/422, TGI {"error_type":"validation"}
  server_error,         // other 5xx, TGI generation errors
  client_error,         // other 4xx
  connect_error,        // connection refused, DNS failure, TLS handshake failure
  connection_reset,     // the peer reset or closed the connection mid-response
  incomplete_stream,    // the stream ended before its final event
  malformed,            // bad SSE framing, bad JSON, non-SSE body on a stream, event too large
  response_too_large,   // response body over --max-response-bytes
  cancelled,            // stopped by the client (interrupt, end of duration)
  abandoned,  // client: a simulated user gave up waiting for the first token (--abandon-after)
};

inline constexpr std::array<std::string_view, 18> kErrorClassNames = {"ok",
                                                                      "overloaded",
                                                                      "rate_limited",
                                                                      "timeout",
                                                                      "timeout_connect",
                                                                      "timeout_first_token",
                                                                      "timeout_idle",
                                                                      "timeout_total",
                                                                      "validation",
                                                                      "server_error",
                                                                      "client_error",
                                                                      "connect_error",
                                                                      "connection_reset",
                                                                      "incomplete_stream",
                                                                      "malformed",
                                                                      "response_too_large",
                                                                      "cancelled",
                                                                      "abandoned"};

inline std::string_view to_string(ErrorClass c) {
  return kErrorClassNames[static_cast<size_t>(c)];
}

inline std::optional<ErrorClass> error_class_from_string(std::string_view s) {
  for (size_t i = 0; i < kErrorClassNames.size(); ++i)
    if (kErrorClassNames[i] == s) return static_cast<ErrorClass>(i);
  return std::nullopt;
}

// Class of a non-2xx HTTP status (docs/architecture.md).
inline ErrorClass error_class_from_status(int status) {
  if (status >= 200 && status < 300) return ErrorClass::ok;
  // 529: Anthropic's "overloaded_error" (its API is the only one known to send it).
  if (status == 503 || status == 529) return ErrorClass::overloaded;
  if (status == 429) return ErrorClass::rate_limited;
  if (status == 408) return ErrorClass::timeout;
  if (status == 400 || status == 422) return ErrorClass::validation;
  if (status >= 500) return ErrorClass::server_error;
  return ErrorClass::client_error;
}

}  // namespace sb
