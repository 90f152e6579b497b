#include "net/connection.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>

#include "common/beast.h"
#include "common/buffer_trim.h"
#include "common/error.h"
#include "net/chunked_decoder.h"
#include "net/readiness.h"
#include "net/rx_timestamp.h"

namespace sb::net {

namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

struct ClientContext::Impl {
  tcp::resolver::results_type endpoints;
  std::optional<ssl::context> tls;
};

ClientContext::ClientContext(const ClientOptions& options)
    : options_(options), impl_(std::make_unique<Impl>()) {
  asio::io_context io;
  tcp::resolver resolver(io);
  error_code ec;
  impl_->endpoints = resolver.resolve(options.url.host, std::to_string(options.url.port), ec);
  if (ec)
    throw Error(fmt::format("cannot resolve host '{}': {}", options.url.host, ec.message()),
                ExitCode::unreachable);
  if (options.url.tls) {
    impl_->tls.emplace(ssl::context::tls_client);
    auto& ctx = *impl_->tls;
    if (options.insecure) {
      ctx.set_verify_mode(ssl::verify_none);
    } else {
      ctx.set_verify_mode(ssl::verify_peer);
      ctx.set_default_verify_paths();
      if (!options.ca_file.empty()) {
        if (!std::ifstream(options.ca_file))
          throw usage_error(fmt::format("--ca-file '{}': cannot read the file", options.ca_file));
        ctx.load_verify_file(options.ca_file, ec);
        if (ec)
          throw usage_error(fmt::format("--ca-file '{}': not a PEM certificate bundle ({})",
                                        options.ca_file, ec.message()));
      }
    }
  }
}

ClientContext::~ClientContext() = default;

namespace {

// The read buffer (raw bytes from the socket) and the body buffer (decoded body bytes handed to
// the caller) start at one page: a streamed event or a small body fits, and an open stream holds
// no more (issue 21: memory per open stream). The read buffer doubles when a read fills it or a
// header does not fit (Beast's own header limit, 8 KiB, comes first), up to kBufferMaxBytes;
// the body buffer follows it at the next read_body. Neither ever shrinks, nor holds a body.
constexpr size_t kBufferMinBytes = 4 * 1024;
constexpr size_t kBufferMaxBytes = 64 * 1024;

using TlsStream = ssl::stream<tcp::socket>;

NetResult from_error(const error_code& ec, std::string_view during) {
  NetResult r;
  r.message = fmt::format("{}: {}", during, ec.message());
  if (ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    r.status = NetStatus::reset;
  } else if (ec == asio::error::eof || ec == http::error::end_of_stream ||
             ec == http::error::partial_message || ec == ssl::error::stream_truncated) {
    r.status = NetStatus::closed;
  } else if (ec == http::error::body_limit || ec == http::error::buffer_overflow ||
             ec == http::error::header_limit) {
    r.status = NetStatus::too_large;
  } else if (ec.category() == http::make_error_code(http::error::bad_version).category()) {
    r.status = NetStatus::bad_response;
  } else {
    r.status = NetStatus::reset;
  }
  return r;
}

}  // namespace

// Shared with the deadline timer's handler, which may run after the Connection is gone.
struct Connection::Impl : std::enable_shared_from_this<Connection::Impl> {
  Impl(asio::any_io_executor ex, const ClientContext& ctx)
      : executor(ex), context(ctx), timer(ex) {}

  // What an event touches comes first, together (at 1,000 streams every cache line an event
  // touches is a miss of its own: docs/performance.md); the rest after it.
  std::unique_ptr<char[]> read_buffer{new char[kBufferMinBytes]};
  size_t read_bytes = kBufferMinBytes;  // read_buffer's size
  size_t read_begin = 0, read_end = 0;  // unparsed bytes in read_buffer
  TimePoint read_at;                    // when those bytes arrived
  Nanos max_read_lag{0};
  TimePoint first_byte_at;  // of the current response (Connection's accessor)
  // A chunked body is decoded by our own decoder (chunked_decoder.h), not by Beast, which
  // parses the header and every other body (sized or delimited by the connection's end, through
  // body_buffer). The decoder hands out a chunk's data as views of the read buffer, valid until
  // the buffer moves (the next prepare_read): a piece is handed on before the next read.
  ChunkedDecoder chunks;
  // The body sink's fast path (take_body_now): what read_body must do when it resumes.
  Connection::BodySink sink;
  // Lazy deadline: `deadline` may move at will; the timer wakes at its own
  // expiry, and only then compares with the current deadline.
  TimePoint deadline = TimePoint::max();
  TimePoint timer_expiry = TimePoint::max();
  error_code hand_back_ec;
  Waiter waiter;              // plain TCP: the socket's readiness
  int fd = -1;                // plain TCP: the socket's descriptor (tcp_socket's, for the hot path)
  bool read_filled = false;   // the last read filled half the buffer or more: grow before the next
  bool drained = false;       // the last read emptied the socket
  bool chunked = false;       // this response's body is chunked (and not yet known to be absent)
  bool handed_back = false;   // the fast path woke read_body: hand_back_ec is its read's result
  bool sink_stopped = false;  // ... because the sink said stop
  bool timer_armed = false;
  bool timed_out = false;

  asio::any_io_executor executor;
  const ClientContext& context;
  std::optional<tcp::socket> tcp_socket;
  std::optional<TlsStream> tls;
  std::optional<http::response_parser<http::buffer_body>> parser;
  // Phase times of the current response and the last connect (Connection's accessors).
  TimePoint header_at;
  Nanos tcp_connect{-1}, tls_handshake{-1};
  std::unique_ptr<char[]> body_buffer{new char[kBufferMinBytes]};
  size_t body_bytes = kBufferMinBytes;  // body_buffer's size
  asio::steady_timer timer;

  tcp::socket& socket() { return tls ? tls->next_layer() : *tcp_socket; }
  bool open() const {
    return tls ? tls->next_layer().is_open() : (tcp_socket && tcp_socket->is_open());
  }

  void set_deadline(TimePoint d) {
    deadline = d;
    timed_out = false;
    if (timer_armed && timer_expiry <= d) return;  // will wake no later than needed
    timer_expiry = d;
    timer.expires_at(d);
    timer_armed = true;
    timer.async_wait([weak = weak_from_this()](const error_code& ec) {
      auto self = weak.lock();
      if (!self || ec == asio::error::operation_aborted) return;
      self->on_timer();
    });
  }

  void on_timer() {
    timer_armed = false;
    const TimePoint now = Clock::now();
    if (deadline == TimePoint::max()) return;
    if (now >= deadline) {
      timed_out = true;
      error_code ignored;
      waiter.detach();                      // fails a pending wait
      if (open()) socket().close(ignored);  // fails the pending operation
      fd = -1;  // a read after this fails (EBADF), whatever the number now belongs to
      return;
    }
    set_deadline(deadline);  // moved later meanwhile: sleep again
  }

  void clear_deadline() { deadline = TimePoint::max(); }

  NetResult fail(const error_code& ec, std::string_view during) {
    NetResult r = timed_out ? NetResult{NetStatus::timeout, fmt::format("{}: timed out", during)}
                            : from_error(ec, during);
    close();
    return r;
  }

  void close() {
    error_code ignored;
    waiter.detach();
    if (open()) {
      socket().shutdown(tcp::socket::shutdown_both, ignored);
      socket().close(ignored);
    }
    tls.reset();
    tcp_socket.reset();
    fd = -1;
    parser.reset();
    read_begin = read_end = 0;
    drained = false;
    handed_back = sink_stopped = false;
    clear_deadline();
    if (timer_armed) {
      timer.cancel();  // a closed connection keeps no timer (nor its event loop) alive
      timer_armed = false;
    }
  }

  // Doubles the read buffer, keeping its unparsed bytes (moved to its start).
  void grow_read_buffer() {
    const size_t bytes = std::min(2 * read_bytes, kBufferMaxBytes);
    std::unique_ptr<char[]> bigger(new char[bytes]);
    std::memcpy(bigger.get(), read_buffer.get() + read_begin, read_end - read_begin);
    read_end -= read_begin;
    read_begin = 0;
    read_buffer = std::move(bigger);
    read_bytes = bytes;
  }

  // The whole body has been read.
  bool body_complete() const { return chunked ? chunks.done() : parser->is_done(); }

  // Decodes buffered body bytes: the first piece goes to `piece` (empty: none yet), a view
  // valid until the next read. A chunked body stops at its first piece; any other is put to
  // Beast, which writes to body_buffer. An error but need_more fails the body.
  error_code put_body(std::string_view& piece) {
    piece = {};
    // Bytes after a complete body (the next response's) are not this body's: Beast must not be
    // given them (a put on a done parser is an assertion failure).
    if (read_end == read_begin || body_complete()) return {};
    const std::string_view in(read_buffer.get() + read_begin, read_end - read_begin);
    if (chunked) {
      size_t used = 0;
      const auto status = chunks.decode(in, used, [&](std::string_view data) {
        piece = data;
        return false;
      });
      read_begin += used;
      return chunk_error(status);
    }
    error_code ec;
    read_begin += parser->put(asio::buffer(in.data(), in.size()), ec);
    piece = take_piece();
    if (ec == http::error::need_buffer || ec == http::error::need_more) return {};
    return ec;
  }
  static error_code chunk_error(ChunkedDecoder::Status status) {
    if (status == ChunkedDecoder::Status::bad_chunk) return http::error::bad_chunk;
    if (status == ChunkedDecoder::Status::body_limit) return http::error::body_limit;
    return {};
  }

  // The piece of body the last put wrote to body_buffer (empty: none), which goes back to
  // the parser whole for the next put.
  std::string_view take_piece() {
    auto& body = parser->get().body();
    const std::string_view piece(body_buffer.get(), body_bytes - body.size);
    body.data = body_buffer.get();  // the piece stays valid until the next put
    body.size = body_bytes;
    return piece;
  }

  // Before read_body hands body_buffer to the parser (no chunk view of it is held then).
  void match_body_buffer() {
    if (body_bytes >= read_bytes) return;
    body_buffer.reset(new char[read_bytes]);
    body_bytes = read_bytes;
  }

  // Before a read: the unparsed tail moved to the buffer's start (a partial event at most, so
  // an open stream touches only the buffer's first page), the buffer doubled when reads come in
  // bulk or a header (or a chunk's size line) fills it; header_limit past kBufferMaxBytes.
  error_code prepare_read() {
    if (read_begin > 0) {
      std::memmove(read_buffer.get(), read_buffer.get() + read_begin, read_end - read_begin);
      read_end -= read_begin;
      read_begin = 0;
    }
    if (read_filled && read_bytes < kBufferMaxBytes) grow_read_buffer();  // bytes come in bulk
    read_filled = false;
    if (read_end == read_bytes) {
      if (read_bytes == kBufferMaxBytes) return http::error::header_limit;
      grow_read_buffer();
    }
    return {};
  }

  // Plain TCP: one recv after prepare_read(), stamped with the kernel's receive time (a late
  // event loop does not delay the recorded arrival). Bytes read are appended to the buffer, and
  // a short read marks the socket drained: wait for its next edge rather than try a read that
  // would fail.
  RxResult recv_some() {
    const RxResult rx = recv_timestamped(fd, read_buffer.get() + read_end, read_bytes - read_end);
    read_at = rx.arrived;
    if (rx.lag > max_read_lag) max_read_lag = rx.lag;
    if (rx.bytes > 0) {
      const size_t room = read_bytes - read_end;
      if (first_byte_at == TimePoint{}) first_byte_at = read_at;
      read_end += static_cast<size_t>(rx.bytes);
      const bool full = static_cast<size_t>(rx.bytes) == room;
      read_filled = full && 2 * room >= read_bytes;  // a bulk read, not a short tail
      drained = !full && !waiter.hung_up();
    }
    return rx;
  }

  awaitable<error_code> read_some() {
    if (error_code ec = prepare_read(); ec) co_return ec;
    error_code ec;
    if (tls) {
      auto buf = asio::buffer(read_buffer.get() + read_end, read_bytes - read_end);
      const size_t n = co_await tls->async_read_some(buf, asio::redirect_error(use_awaitable, ec));
      read_at = Clock::now();
      read_end += n;
      read_filled = n == buf.size() && 2 * n >= read_bytes;
      if (first_byte_at == TimePoint{} && n > 0) first_byte_at = read_at;
      co_return ec;
    }
    for (;;) {
      if (drained) {
        if (!waiter.attached()) {
          co_await tcp_socket->async_wait(tcp::socket::wait_read,
                                          asio::redirect_error(use_awaitable, ec));
        } else if (!waiter.take_ready()) {
          co_await waiter.async_wait(asio::redirect_error(use_awaitable, ec));
        }
        const bool fast = std::exchange(handed_back, false);
        if (ec) co_return ec;
        // A wake-up already queued when the connection was closed still arrives.
        if (!tcp_socket || !tcp_socket->is_open()) co_return asio::error::operation_aborted;
        if (fast) co_return std::exchange(hand_back_ec, {});  // the fast path read already
        drained = false;
      }
      const RxResult rx = recv_some();
      if (rx.bytes > 0) co_return ec;
      if (rx.bytes == 0) co_return asio::error::eof;
      if (rx.error == EINTR) continue;
      if (rx.error != EAGAIN && rx.error != EWOULDBLOCK)
        co_return error_code(rx.error, asio::error::get_system_category());
      drained = true;
    }
  }

  // The body sink's fast path: the readiness hook while read_body() waits on the socket. Reads
  // and parses as read_body() would, handing each piece of body to the sink. True: the socket
  // is drained and every piece taken (the wait goes on); false: read_body() resumes, because
  // the body is complete, the sink stopped, or a read or the parser failed (hand_back_ec).
  static bool on_ready(void* self) { return static_cast<Impl*>(self)->take_body_now(); }
  bool take_body_now() {
    drained = false;
    for (;;) {
      if (chunked && read_end > read_begin) {
        // Every chunk piece read goes to the sink from within one decode.
        size_t used = 0;
        const auto status =
            chunks.decode(std::string_view(read_buffer.get() + read_begin, read_end - read_begin),
                          used, [this](std::string_view data) { return give_to_sink(data); });
        read_begin += used;
        if (status != ChunkedDecoder::Status::more) return hand_back(chunk_error(status));
      } else if (read_end > read_begin) {
        std::string_view piece;
        if (error_code ec = put_body(piece); ec) return hand_back(ec);
        if (!piece.empty()) {
          if (!give_to_sink(piece)) return hand_back({});
          continue;
        }
      }
      if (body_complete()) return hand_back({});
      if (drained) return true;
      if (error_code ec = prepare_read(); ec) return hand_back(ec);
      const RxResult rx = recv_some();
      if (rx.bytes > 0) continue;
      if (rx.bytes == 0) return hand_back(asio::error::eof);
      if (rx.error == EINTR) continue;
      if (rx.error != EAGAIN && rx.error != EWOULDBLOCK)
        return hand_back(error_code(rx.error, asio::error::get_system_category()));
      drained = true;
      return true;
    }
  }
  // Hands a piece read at read_at to the body sink; false (sink_stopped set) when it says stop.
  bool give_to_sink(std::string_view piece) {
    if (sink.fn(sink.ctx, piece, read_at)) return true;
    sink_stopped = true;
    return false;
  }
  bool hand_back(const error_code& ec) {
    handed_back = true;
    hand_back_ec = ec;
    return false;
  }
};

Connection::Connection(asio::any_io_executor executor, const ClientContext& context)
    : impl_(std::make_shared<Impl>(executor, context)) {}

Connection::~Connection() {
  if (impl_) {
    impl_->close();
    impl_->timer.cancel();
  }
}

bool Connection::is_open() const {
  return impl_->open();
}
void Connection::close() {
  impl_->close();
}

awaitable<NetResult> Connection::connect(TimePoint deadline) {
  auto& m = *impl_;
  m.close();
  const auto& cimpl = m.context.impl();
  m.tcp_socket.emplace(m.executor);
  m.set_deadline(deadline);
  m.tcp_connect = m.tls_handshake = Nanos{-1};
  const TimePoint t0 = Clock::now();
  error_code ec;
  co_await asio::async_connect(*m.tcp_socket, cimpl.endpoints,
                               asio::redirect_error(use_awaitable, ec));
  if (ec) {
    NetResult r = m.fail(ec, "connect");
    if (r.status != NetStatus::timeout) r.status = NetStatus::connect_failed;
    co_return r;
  }
  const TimePoint t1 = Clock::now();
  m.tcp_connect = t1 - t0;
  m.tcp_socket->set_option(tcp::no_delay(true), ec);
  if (!cimpl.tls) {
    m.fd = m.tcp_socket->native_handle();
    enable_rx_timestamps(m.fd);
    // Nothing can arrive before the request is sent: wait for the first edge.
    m.drained = m.waiter.attach(*m.tcp_socket);
    m.clear_deadline();
    co_return NetResult{};
  }
  // TLS: SNI, then certificate and host name verification (unless --insecure).
  m.tls.emplace(std::move(*m.tcp_socket), const_cast<ssl::context&>(*cimpl.tls));
  m.tcp_socket.reset();
  const auto& url = m.context.options().url;
  SSL_set_tlsext_host_name(m.tls->native_handle(), url.host.c_str());
  if (!m.context.options().insecure)
    m.tls->set_verify_callback(ssl::host_name_verification(url.host));
  co_await m.tls->async_handshake(ssl::stream_base::client,
                                  asio::redirect_error(use_awaitable, ec));
  if (ec) {
    NetResult r = m.fail(ec, "TLS handshake");
    if (r.status != NetStatus::timeout) r.status = NetStatus::connect_failed;
    co_return r;
  }
  m.tls_handshake = Clock::now() - t1;
  m.clear_deadline();
  co_return NetResult{};
}

awaitable<NetResult> Connection::write(std::string_view bytes, TimePoint deadline) {
  auto& m = *impl_;
  m.set_deadline(deadline);
  error_code ec;
  auto buffer = asio::buffer(bytes.data(), bytes.size());
  if (m.tls)
    co_await asio::async_write(*m.tls, buffer, asio::redirect_error(use_awaitable, ec));
  else
    co_await asio::async_write(*m.tcp_socket, buffer, asio::redirect_error(use_awaitable, ec));
  if (ec) co_return m.fail(ec, "write");
  m.clear_deadline();
  co_return NetResult{};
}

awaitable<NetResult> Connection::read_header(TimePoint deadline) {
  auto& m = *impl_;
  m.parser.emplace();
  m.chunked = false;
  m.parser->eager(false);  // stop after the header; the body goes through read_body
  m.parser->body_limit(m.context.options().max_response_bytes);
  m.set_deadline(deadline);
  // Bytes already buffered (a pipelined remnant) arrived with the last read.
  m.first_byte_at = m.read_end > m.read_begin ? m.read_at : TimePoint{};
  m.max_read_lag = Nanos{0};
  for (;;) {
    error_code ec;
    if (m.read_end > m.read_begin) {
      const size_t used = m.parser->put(
          asio::buffer(m.read_buffer.get() + m.read_begin, m.read_end - m.read_begin), ec);
      m.read_begin += used;
      // Before is_header_done(): a Content-Length over body_limit fails with the header done.
      if (ec && ec != http::error::need_more) co_return m.fail(ec, "reading the response header");
      if (m.parser->is_header_done()) {
        m.header_at = m.read_at;
        // A body-less response (204, 304) is done with its header, chunked or not.
        m.chunked = m.parser->chunked() && !m.parser->is_done();
        if (m.chunked) m.chunks.reset(m.context.options().max_response_bytes);
        break;
      }
    }
    ec = co_await m.read_some();
    if (ec == asio::error::eof && m.read_end == m.read_begin) {
      co_return m.fail(http::error::end_of_stream, "reading the response header");
    }
    if (ec) co_return m.fail(ec, "reading the response header");
  }
  m.clear_deadline();
  co_return NetResult{};
}

std::string_view Connection::header(std::string_view name) const {
  if (!impl_->parser) return {};
  const auto& h = impl_->parser->get();
  auto it = h.find(boost::beast::string_view(name.data(), name.size()));
  return it == h.end() ? std::string_view()
                       : std::string_view(it->value().data(), it->value().size());
}
TimePoint Connection::first_byte_at() const {
  return impl_->first_byte_at;
}
TimePoint Connection::header_at() const {
  return impl_->header_at;
}
Nanos Connection::max_read_lag() const {
  return impl_->max_read_lag;
}
Nanos Connection::tcp_connect_time() const {
  return impl_->tcp_connect;
}
Nanos Connection::tls_handshake_time() const {
  return impl_->tls_handshake;
}

int Connection::status() const {
  return impl_->parser ? static_cast<int>(impl_->parser->get().result_int()) : 0;
}

std::string Connection::content_type() const {
  if (!impl_->parser) return {};
  auto it = impl_->parser->get().find(http::field::content_type);
  return it == impl_->parser->get().end() ? std::string() : std::string(it->value());
}

awaitable<NetResult> Connection::read_body(TimePoint deadline, std::string_view& chunk,
                                           TimePoint& arrived) {
  auto& m = *impl_;
  chunk = {};
  arrived = m.read_at;
  if (!m.parser || m.body_complete()) co_return NetResult{};
  if (!m.chunked) {
    m.match_body_buffer();
    auto& body = m.parser->get().body();
    body.data = m.body_buffer.get();
    body.size = m.body_bytes;
    m.parser->eager(true);
  }
  m.sink_stopped = false;
  // The fast path while this waits (TCP only: TLS reads through Asio, with no readiness hook).
  struct HookGuard {
    Waiter& waiter;
    ~HookGuard() { waiter.set_ready_hook(nullptr, nullptr); }
  } hook_guard{m.waiter};
  if (m.sink.fn && m.waiter.attached()) m.waiter.set_ready_hook(&Impl::on_ready, &m);
  bool waited = false;
  for (;;) {
    std::string_view piece;
    error_code ec = m.put_body(piece);
    if (ec) co_return m.fail(ec, "reading the response body");
    if (!piece.empty() || m.body_complete()) {
      chunk = piece;
      arrived = m.read_at;
      if (waited) m.clear_deadline();
      co_return NetResult{};
    }
    if (!waited) {
      m.set_deadline(deadline);
      waited = true;
    }
    ec = co_await m.read_some();
    if (m.sink_stopped) {
      chunk = {};
      m.clear_deadline();
      co_return NetResult{};
    }
    if (ec == asio::error::eof || ec == ssl::error::stream_truncated) {
      // A body delimited by the connection's end completes here; any other is cut short.
      error_code eof_ec;
      if (!m.chunked) m.parser->put_eof(eof_ec);
      if (!m.chunked && !eof_ec && m.parser->is_done()) {
        chunk = {};
        arrived = m.read_at;
        m.clear_deadline();
        co_return NetResult{};
      }
      co_return m.fail(http::error::partial_message, "reading the response body");
    }
    if (ec) co_return m.fail(ec, "reading the response body");
  }
}

size_t Connection::buffer_capacity_bytes() const {
  return impl_->read_bytes + impl_->body_bytes;
}

void Connection::set_body_sink(BodySink sink) {
  impl_->sink = sink;
}
bool Connection::sink_stopped() const {
  return impl_->sink_stopped;
}
void Connection::set_read_deadline(TimePoint deadline) {
  impl_->set_deadline(deadline);
}

bool Connection::body_done() const {
  return !impl_->parser || impl_->body_complete();
}

bool Connection::keep_alive() const {
  return impl_->parser && impl_->body_complete() && impl_->parser->keep_alive() && is_open();
}

NetResult probe_connect(const ClientContext& context, Nanos timeout) {
  asio::io_context io;
  NetResult result{NetStatus::connect_failed, "connect: not attempted"};
  {
    Connection connection(io.get_executor(), context);
    asio::co_spawn(io, connection.connect(Clock::now() + timeout),
                   [&](std::exception_ptr e, NetResult r) {
                     if (!e) result = std::move(r);
                     connection.close();
                   });
    io.run();
  }
  return result;
}

void serialize_request(std::string& out, const RequestHead& head, std::string_view body) {
  // A large request's capacity is kept only while requests stay large (common/buffer_trim.h).
  const size_t need =
      body.size() + head.target.size() + head.host_header.size() + head.extra_headers.size() + 256;
  if (need > kBufferKeepBytes)
    out.clear();
  else
    clear_and_trim(out);
  out.reserve(need);
  fmt::format_to(std::back_inserter(out), "{} {} HTTP/1.1\r\nHost: {}\r\nAccept: {}\r\n",
                 head.method, head.target, head.host_header, head.accept);
  out += "User-Agent: servebench/" SERVEBENCH_VERSION "\r\n";
  if (!body.empty() || head.method == "POST")
    fmt::format_to(std::back_inserter(out),
                   "Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
  out += head.extra_headers;
  out += "\r\n";
  out += body;
}

}  // namespace sb::net
