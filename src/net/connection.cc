#include "net/connection.h"

#include <fstream>
#include <optional>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <fmt/format.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>

#include "common/beast.h"
#include "common/error.h"

namespace sb::net {

namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

struct ClientContext::Impl {
  tcp::resolver::results_type endpoints;
  std::optional<ssl::context> tls;
};

ClientContext::ClientContext(const ClientOptions& options)
    : options_(options), impl_(std::make_unique<Impl>()) {
  asio::io_context io;
  tcp::resolver resolver(io);
  boost::system::error_code ec;
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

constexpr size_t kBodyBufferBytes = 16 * 1024;
constexpr size_t kHeaderLimitBytes = 16 * 1024;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

NetResult from_error(const boost::system::error_code& ec, std::string_view during) {
  NetResult r;
  r.message = fmt::format("{}: {}", during, ec.message());
  if (ec == beast::error::timeout) {
    r.status = NetStatus::timeout;
  } else if (ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
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

struct Connection::Impl {
  asio::any_io_executor executor;
  const ClientContext& context;
  std::optional<beast::tcp_stream> tcp;
  std::optional<TlsStream> tls;
  beast::flat_buffer read_buffer{kHeaderLimitBytes + kBodyBufferBytes};
  std::optional<http::response_parser<http::buffer_body>> parser;
  std::unique_ptr<char[]> body_buffer{new char[kBodyBufferBytes]};
  unsigned reuse = 0;

  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *tcp; }
  bool open() const {
    return tls ? beast::get_lowest_layer(*tls).socket().is_open() : (tcp && tcp->socket().is_open());
  }
};

Connection::Connection(asio::any_io_executor executor, const ClientContext& context)
    : impl_(new Impl{executor, context}) {}

Connection::~Connection() = default;

bool Connection::is_open() const { return impl_->open(); }
unsigned Connection::reuse_count() const { return impl_->reuse; }

void Connection::close() {
  auto& m = *impl_;
  if (m.tls || m.tcp) {
    boost::system::error_code ignored;
    m.lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    m.lowest().socket().close(ignored);
  }
  m.tls.reset();
  m.tcp.reset();
  m.parser.reset();
  m.read_buffer.clear();
  m.reuse = 0;
}

awaitable<NetResult> Connection::connect(TimePoint deadline) {
  auto& m = *impl_;
  close();
  const auto& cimpl = m.context.impl();
  beast::tcp_stream stream(m.executor);
  stream.expires_at(deadline);
  boost::system::error_code ec;
  co_await stream.async_connect(cimpl.endpoints, asio::redirect_error(use_awaitable, ec));
  if (ec) {
    NetResult r = from_error(ec, "connect");
    if (r.status != NetStatus::timeout) r.status = NetStatus::connect_failed;
    co_return r;
  }
  stream.socket().set_option(tcp::no_delay(true), ec);
  if (!cimpl.tls) {
    m.tcp.emplace(std::move(stream));
    co_return NetResult{};
  }
  // TLS: SNI, then certificate and host name verification (unless --insecure).
  m.tls.emplace(std::move(stream), const_cast<ssl::context&>(*cimpl.tls));
  const auto& url = m.context.options().url;
  SSL_set_tlsext_host_name(m.tls->native_handle(), url.host.c_str());
  if (!m.context.options().insecure)
    m.tls->set_verify_callback(ssl::host_name_verification(url.host));
  beast::get_lowest_layer(*m.tls).expires_at(deadline);
  co_await m.tls->async_handshake(ssl::stream_base::client, asio::redirect_error(use_awaitable, ec));
  if (ec) {
    NetResult r = from_error(ec, "TLS handshake");
    if (r.status != NetStatus::timeout) r.status = NetStatus::connect_failed;
    close();
    co_return r;
  }
  co_return NetResult{};
}

awaitable<NetResult> Connection::write(std::string_view bytes, TimePoint deadline) {
  auto& m = *impl_;
  m.lowest().expires_at(deadline);
  boost::system::error_code ec;
  auto buffer = asio::buffer(bytes.data(), bytes.size());
  if (m.tls)
    co_await asio::async_write(*m.tls, buffer, asio::redirect_error(use_awaitable, ec));
  else
    co_await asio::async_write(*m.tcp, buffer, asio::redirect_error(use_awaitable, ec));
  if (ec) {
    close();
    co_return from_error(ec, "write");
  }
  co_return NetResult{};
}

awaitable<NetResult> Connection::read_header(TimePoint deadline) {
  auto& m = *impl_;
  m.parser.emplace();
  m.parser->header_limit(kHeaderLimitBytes);
  m.parser->body_limit(m.context.options().max_response_bytes);
  m.lowest().expires_at(deadline);
  boost::system::error_code ec;
  if (m.tls)
    co_await http::async_read_header(*m.tls, m.read_buffer, *m.parser,
                                     asio::redirect_error(use_awaitable, ec));
  else
    co_await http::async_read_header(*m.tcp, m.read_buffer, *m.parser,
                                     asio::redirect_error(use_awaitable, ec));
  if (ec) {
    close();
    co_return from_error(ec, "reading the response header");
  }
  co_return NetResult{};
}

int Connection::status() const {
  return impl_->parser ? static_cast<int>(impl_->parser->get().result_int()) : 0;
}

std::string Connection::content_type() const {
  if (!impl_->parser) return {};
  auto it = impl_->parser->get().find(http::field::content_type);
  return it == impl_->parser->get().end() ? std::string() : std::string(it->value());
}

awaitable<NetResult> Connection::read_body(TimePoint deadline, std::string_view& chunk) {
  auto& m = *impl_;
  chunk = {};
  if (!m.parser || m.parser->is_done()) co_return NetResult{};
  auto& body = m.parser->get().body();
  body.data = m.body_buffer.get();
  body.size = kBodyBufferBytes;
  m.lowest().expires_at(deadline);
  boost::system::error_code ec;
  if (m.tls)
    co_await http::async_read_some(*m.tls, m.read_buffer, *m.parser,
                                   asio::redirect_error(use_awaitable, ec));
  else
    co_await http::async_read_some(*m.tcp, m.read_buffer, *m.parser,
                                   asio::redirect_error(use_awaitable, ec));
  if (ec == http::error::need_buffer) ec = {};
  const size_t got = kBodyBufferBytes - body.size;
  chunk = std::string_view(m.body_buffer.get(), got);
  if (ec) {
    close();
    co_return from_error(ec, "reading the response body");
  }
  if (m.parser->is_done()) ++m.reuse;
  co_return NetResult{};
}

bool Connection::body_done() const { return !impl_->parser || impl_->parser->is_done(); }

bool Connection::keep_alive() const {
  return impl_->parser && impl_->parser->is_done() && impl_->parser->keep_alive() && is_open();
}

NetResult probe_connect(const ClientContext& context, Nanos timeout) {
  asio::io_context io;
  Connection connection(io.get_executor(), context);
  NetResult result{NetStatus::connect_failed, "connect: not attempted"};
  asio::co_spawn(io, connection.connect(Clock::now() + timeout),
                 [&](std::exception_ptr e, NetResult r) {
                   if (!e) result = std::move(r);
                 });
  io.run();
  connection.close();
  return result;
}

void serialize_request(std::string& out, const RequestHead& head, std::string_view body) {
  out.clear();
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
