#pragma once
// One keep-alive HTTP/1.1 client connection (plain TCP or TLS) driven by C++20
// coroutines on its worker's event loop. Beast stays inside connection.cc.
//
// Every operation takes an absolute deadline; an operation that passes it fails
// with NetStatus::timeout and closes the connection. One timer per connection
// enforces deadlines lazily: moving a deadline later costs no timer operation.
// Bytes are read from the socket by us (one read = one arrival timestamp: the
// kernel's receive stamp over plain TCP, see rx_timestamp.h) and
// parsed by Beast's HTTP/1.1 parser (status, headers, chunked or sized body). Requests are
// serialised by the caller (raw bytes); the response is read header first, then the decoded body
// (chunked or sized) piece by piece, as it arrives.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/asio.h"
#include "common/clock.h"
#include "net/client_options.h"
#include "net/url.h"

namespace sb::net {

enum class NetStatus {
  ok,
  timeout,         // the deadline passed
  connect_failed,  // refused, unreachable, DNS, TLS handshake/verification
  reset,           // connection reset by the peer
  closed,          // the peer closed before the response was complete
  too_large,       // the body exceeded max_response_bytes
  bad_response,    // not valid HTTP/1.1
};

struct NetResult {
  NetStatus status = NetStatus::ok;
  std::string message;
  bool ok() const { return status == NetStatus::ok; }
};

// Read-only after construction and shared by every worker: resolved addresses
// and the TLS context. Throws sb::Error (unreachable) when the host does not resolve,
// sb::Error (usage) for an unreadable CA file.
class ClientContext {
 public:
  explicit ClientContext(const ClientOptions& options);
  ~ClientContext();
  ClientContext(const ClientContext&) = delete;
  ClientContext& operator=(const ClientContext&) = delete;
  const ClientOptions& options() const { return options_; }
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  ClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

class Connection {
 public:
  Connection(asio::any_io_executor executor, const ClientContext& context);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool is_open() const;
  awaitable<NetResult> connect(TimePoint deadline);
  awaitable<NetResult> write(std::string_view bytes, TimePoint deadline);
  // Reads the status line and headers of the next response.
  awaitable<NetResult> read_header(TimePoint deadline);
  int status() const;
  std::string content_type() const;
  // Reads the next piece of the decoded body; `chunk` views an internal buffer
  // valid until the next call, `arrived` is when its bytes were read from the
  // socket. After the last piece body_done() is true.
  awaitable<NetResult> read_body(TimePoint deadline, std::string_view& chunk, TimePoint& arrived);
  bool body_done() const;
  // The fast path of a streamed body: while read_body() waits on a plain-TCP socket, each piece
  // of decoded body that arrives goes to fn(ctx, piece, arrived) straight from the event loop's
  // reactor (on the socket's edge), the coroutine in read_body() left asleep (no resumption per
  // event). read_body() returns the pieces the sink did not take (those read without
  // waiting, every piece over TLS), each once. fn returns false to stop: read_body() then
  // returns at once, body_done() false, and sink_stopped() true until the next read_body().
  // Set for one response's body; clear it (a default BodySink) before what fn refers to goes.
  struct BodySink {
    bool (*fn)(void* ctx, std::string_view piece, TimePoint arrived) = nullptr;
    void* ctx = nullptr;
  };
  void set_body_sink(BodySink sink);
  bool sink_stopped() const;
  // From a body sink: the deadline of the read_body() under way, moved.
  void set_read_deadline(TimePoint deadline);
  // After read_header(): a response header's value by name ("" when absent), and when the
  // response's first byte and the end of its header arrived (the kernel's stamps over TCP).
  std::string_view header(std::string_view name) const;
  TimePoint first_byte_at() const;
  TimePoint header_at() const;
  // The longest any read of the current response (since read_header) found its newest bytes
  // already waiting in the kernel: the client's read lag, 0 without kernel stamps (TLS).
  Nanos max_read_lag() const;
  // The last connect(): TCP connect and TLS handshake times (Nanos{-1}: not done, or no TLS).
  Nanos tcp_connect_time() const;
  Nanos tls_handshake_time() const;
  // After body_done(): whether the connection may carry another request.
  bool keep_alive() const;
  // Bytes of buffer this connection holds: a read buffer and a decoded-body buffer of 4 KiB
  // each, doubled (up to 64 KiB each) when reads fill them, whatever the size of the bodies
  // read (they pass through piece by piece).
  size_t buffer_capacity_bytes() const;
  void close();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;  // shared with the deadline timer's handler
};

// Opens and closes one connection (TCP, and TLS when https): tells before a run
// whether the target is reachable at all.
NetResult probe_connect(const ClientContext& context, Nanos timeout);

// Serialises an HTTP/1.1 POST (or GET when body is empty and method says so) into `out`, which
// keeps its capacity between requests only up to kBufferKeepBytes (common/buffer_trim.h) unless
// this request needs more.
struct RequestHead {
  std::string_view method = "POST";
  std::string_view target;       // path and query
  std::string_view host_header;  // Host: value
  std::string_view accept = "application/json";
  std::string_view extra_headers;  // zero or more "Name: value\r\n" lines
};
void serialize_request(std::string& out, const RequestHead& head, std::string_view body);

}  // namespace sb::net
