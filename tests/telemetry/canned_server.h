#pragma once
// A loopback HTTP server for the telemetry tests: every request gets one fixed response,
// optionally after a delay (a slow /metrics, an HTML login page, a huge page...).
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "common/asio.h"

namespace sb::telemetry::testing {

// A loopback server answering every request with a fixed response, optionally after a delay.
class CannedServer {
 public:
  CannedServer(std::string response, std::chrono::milliseconds delay)
      : response_(std::move(response)),
        delay_(delay),
        acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] {
      for (;;) {
        asio::ip::tcp::socket s(io_);
        boost::system::error_code ec;
        acceptor_.accept(s, ec);
        if (ec || stop_) return;
        std::string req;
        asio::read_until(s, asio::dynamic_buffer(req), "\r\n\r\n", ec);
        std::this_thread::sleep_for(delay_);
        asio::write(s, asio::buffer(response_), ec);
        s.close(ec);
      }
    });
  }
  ~CannedServer() {
    stop_ = true;
    boost::system::error_code ec;
    asio::ip::tcp::socket s(io_);
    s.connect({asio::ip::make_address("127.0.0.1"), port_}, ec);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

 private:
  std::string response_;
  std::chrono::milliseconds delay_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  uint16_t port_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

inline std::string http_ok(const std::string& type, const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

}  // namespace sb::telemetry::testing
