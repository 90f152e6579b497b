#pragma once
// servebench sim's HTTP server: TGI and OpenAI (vLLM-flavoured) APIs plus /metrics
// over HTTP/1.1 keep-alive, backed by the simulated Engine. Many instances may live
// in one process; each owns its threads; no globals.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/trace.h"

namespace sb::sim {

class Server {
 public:
  explicit Server(SimConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port (0: ephemeral), starts serving on its own threads and returns
  // the bound port. Throws sb::Error when the address cannot be bound.
  uint16_t start();
  // Stops serving and closes every connection; start() may be called again.
  void stop();
  // "http://HOST:PORT" of the bound socket (after start()).
  std::string url() const;

  // Ground truth of every finished request so far (also written to trace_path).
  std::vector<TraceRecord> trace() const;
  // Waits until no generate request is being handled, so that trace() holds every
  // request a client has seen answered: the client may read a stream's last bytes
  // before the server's handler resumes to record it. False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout) const;
  const SimConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb::sim
