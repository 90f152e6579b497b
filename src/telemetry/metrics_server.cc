#include "telemetry/metrics_server.h"

#include <thread>

#include <fmt/format.h>
#include <boost/asio/redirect_error.hpp>

#include "common/accept_backoff.h"
#include "common/asio.h"
#include "common/error.h"
#include "net/http_fetch.h"

namespace sb::telemetry {

using tcp = asio::ip::tcp;

struct MetricsServer::Impl {
  std::string host;
  uint16_t port = 0;
  std::function<std::string()> render;
  asio::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread thread;

  awaitable<void> session(tcp::socket sock) {
    boost::system::error_code ec;
    std::string req;
    asio::steady_timer timer(sock.get_executor());
    timer.expires_after(std::chrono::seconds(5));
    timer.async_wait([&sock](const boost::system::error_code& e) {
      if (!e) sock.close();
    });
    co_await asio::async_read_until(sock, asio::dynamic_buffer(req, 16384), "\r\n\r\n",
                                    asio::redirect_error(use_awaitable, ec));
    if (ec) co_return;
    const bool metrics = req.starts_with("GET /metrics ") || req.starts_with("GET /metrics?") ||
                         req.starts_with("GET / ");
    const std::string body = metrics ? render() : "not found: try /metrics\n";
    const std::string resp = fmt::format(
        "HTTP/1.1 {}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
        "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        metrics ? "200 OK" : "404 Not Found", body.size(), body);
    co_await asio::async_write(sock, asio::buffer(resp), asio::redirect_error(use_awaitable, ec));
    timer.cancel();
    sock.shutdown(tcp::socket::shutdown_both, ec);
  }

  // Out of descriptors the listener stays readable: wait before the next try (never spin).
  awaitable<void> accept_loop() {
    AcceptBackoff backoff(fmt::format("servebench: live metrics endpoint on port {}", port));
    asio::steady_timer pause(io);
    for (;;) {
      boost::system::error_code ec;
      tcp::socket sock(io);
      co_await acceptor->async_accept(sock, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (!acceptor->is_open() || ec == asio::error::operation_aborted) co_return;
        pause.expires_after(backoff.after_error(ec));
        co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
        continue;
      }
      asio::co_spawn(io, session(std::move(sock)), asio::detached);
    }
  }
};

MetricsServer::MetricsServer(std::string host, uint16_t port, std::function<std::string()> render)
    : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->port = port;
  impl_->render = std::move(render);
}

MetricsServer::~MetricsServer() {
  stop();
}

uint16_t MetricsServer::start() {
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(impl_->host, ec);
  if (ec) throw usage_error(fmt::format("--metrics-port: bad listen address '{}'", impl_->host));
  const tcp::endpoint ep(addr, impl_->port);
  auto acc = std::make_unique<tcp::acceptor>(impl_->io);
  acc->open(ep.protocol(), ec);
  if (!ec) acc->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acc->bind(ep, ec);
  if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw usage_error(fmt::format("--metrics-port {}: cannot listen on {} ({})", impl_->port,
                                  impl_->host, ec.message()));
  impl_->port = acc->local_endpoint().port();
  impl_->acceptor = std::move(acc);
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  impl_->thread = std::thread([this] { impl_->io.run(); });
  return impl_->port;
}

void MetricsServer::stop() {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    boost::system::error_code ec;
    impl_->acceptor->close(ec);
  });
  impl_->io.stop();
  impl_->thread.join();
  impl_->acceptor.reset();
}

std::string MetricsServer::url() const {
  const bool v6 = impl_->host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}/metrics", v6 ? "[" : "", impl_->host, v6 ? "]" : "",
                     impl_->port);
}

std::string push_to_gateway(const std::string& url, const std::string& text) {
  std::string target = url;
  while (target.ends_with('/')) target.pop_back();
  target += "/metrics/job/servebench";
  net::HttpFetchOptions o;
  o.method = "PUT";
  o.body = text;
  const net::HttpFetchResult r = net::http_fetch(target, o);
  return r.ok ? "" : r.error;
}

}  // namespace sb::telemetry
