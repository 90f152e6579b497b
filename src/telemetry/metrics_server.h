#pragma once
// A tiny HTTP/1.1 server for --metrics-port: GET /metrics answers the render callback's
// Prometheus text (one request per connection, then close); anything else is 404. It runs
// on its own thread and event loop, never on the load engine's.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace sb::telemetry {

class MetricsServer {
 public:
  // `render` is called on the server's thread for each scrape.
  MetricsServer(std::string host, uint16_t port, std::function<std::string()> render);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;
  // Binds (port 0: ephemeral) and starts serving; returns the bound port. Throws sb::Error
  // (usage) when the address cannot be bound.
  uint16_t start();
  void stop();
  std::string url() const;  // http://HOST:PORT/metrics

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// PUTs `text` to URL/metrics/job/servebench (a Prometheus Pushgateway). Returns "" on
// success, else the reason.
std::string push_to_gateway(const std::string& url, const std::string& text);

}  // namespace sb::telemetry
