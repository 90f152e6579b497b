#pragma once
// A loopback TCP proxy for the fault-injection tests: it sits between the client
// engine and the in-process simulator and damages the server's bytes on their
// way back. One thread per connection, blocking sockets polled every few ms, so
// that the proxy itself never needs an event loop (and never hides a client bug
// behind one). Requests (client -> server) pass unchanged except in `drop` mode.
//
// Modes (per connection, applied to the response stream):
//   pass                 forward everything
//   drop                 accept and read the request, send nothing, never close
//   delay                forward each piece `delay` after it arrived (added latency)
//   truncate             forward `after_bytes` bytes of the response, then close (FIN);
//                        with `after_header`, counted from the end of the header
//   reset                as truncate, then reset the connection (RST)
//   drip                 forward one byte at a time, `gap` between bytes
//   close_after_header   forward the response header, then close (FIN)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>  // ppoll (_GNU_SOURCE: g++ defines it)
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sb::testing {

struct ProxyOptions {
  enum class Mode { pass, drop, delay, truncate, reset, drip, close_after_header };
  Mode mode = Mode::pass;
  std::chrono::microseconds delay{0};  // delay
  std::chrono::microseconds gap{0};    // drip
  size_t after_bytes = 0;              // truncate, reset
  bool after_header = false;           // truncate, reset: count after_bytes from the header's end
};

class FaultProxy {
 public:
  FaultProxy(uint16_t upstream_port, ProxyOptions options)
      : upstream_port_(upstream_port), options_(options) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a = loopback(0);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listen_fd_, 256) != 0)
      throw std::runtime_error("proxy: cannot listen");
    socklen_t len = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FaultProxy() {
    stop_ = true;
    acceptor_.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
    ::close(listen_fd_);
  }
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }

 private:
  using Clock = std::chrono::steady_clock;

  static sockaddr_in loopback(uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }

  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 10) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      ++connections_;
      std::lock_guard lock(mu_);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  static bool write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  static void reset(int fd) {
    linger l{1, 0};  // close() sends RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd);
  }

  void serve(int client) {
    using Mode = ProxyOptions::Mode;
    const int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int upstream = -1;
    if (options_.mode != Mode::drop) {
      upstream = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a = loopback(upstream_port_);
      if (::connect(upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(upstream);
        ::close(client);
        return;
      }
      ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    // Response bytes not yet forwarded, with the instant each piece may go.
    std::deque<std::pair<Clock::time_point, std::string>> pending;
    size_t forwarded = 0;     // response bytes sent to the client
    std::string header_seen;  // the response's first bytes, to find the header's end
    size_t header_end = std::string::npos;
    bool upstream_open = upstream >= 0, client_open = true;
    auto budget = [&]() -> size_t {  // response bytes that may still go (SIZE_MAX: no limit)
      switch (options_.mode) {
        case Mode::truncate:
        case Mode::reset:
          if (!options_.after_header)
            return options_.after_bytes - std::min(forwarded, options_.after_bytes);
          if (header_end == std::string::npos) return SIZE_MAX;
          return header_end + options_.after_bytes -
                 std::min(forwarded, header_end + options_.after_bytes);
        case Mode::close_after_header:
          if (header_end == std::string::npos) return SIZE_MAX;
          return header_end - std::min(forwarded, header_end);
        default:
          return SIZE_MAX;
      }
    };
    char buf[16384];
    while (!stop_ && client_open) {
      pollfd fds[2] = {{client, POLLIN, 0},
                       {upstream, static_cast<short>(upstream_open ? POLLIN : 0), 0}};
      auto wait = std::chrono::nanoseconds(std::chrono::milliseconds(2));
      if (!pending.empty())
        wait = std::clamp<std::chrono::nanoseconds>(pending.front().first - Clock::now(),
                                                    std::chrono::nanoseconds(0), wait);
      const timespec ts{0, static_cast<long>(wait.count())};
      ::ppoll(fds, upstream >= 0 ? 2 : 1, &ts, nullptr);
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(client, buf, sizeof buf, 0);
        if (n <= 0) break;  // the client left
        if (upstream >= 0 && !write_all(upstream, buf, static_cast<size_t>(n))) break;
      }
      if (upstream >= 0 && upstream_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t n = ::recv(upstream, buf, sizeof buf, 0);
        if (n <= 0) {
          upstream_open = false;
        } else {
          if (header_end == std::string::npos && header_seen.size() < 65536) {
            header_seen.append(buf, static_cast<size_t>(n));
            const size_t e = header_seen.find("\r\n\r\n");
            if (e != std::string::npos) header_end = e + 4;
          }
          pending.emplace_back(Clock::now() + options_.delay,
                               std::string(buf, static_cast<size_t>(n)));
        }
      }
      // Forward what is due, within the budget.
      while (!pending.empty() && pending.front().first <= Clock::now()) {
        std::string& piece = pending.front().second;
        size_t n = std::min(piece.size(), budget());
        if (options_.mode == Mode::drip) n = std::min<size_t>(n, 1);
        if (n > 0 && !write_all(client, piece.data(), n)) {
          client_open = false;
          break;
        }
        forwarded += n;
        piece.erase(0, n);
        if (piece.empty()) pending.pop_front();
        if (budget() == 0) break;
        if (options_.mode == Mode::drip) {
          if (!pending.empty()) pending.front().first = Clock::now() + options_.gap;
          break;
        }
      }
      if (client_open && budget() == 0) {  // the damage: cut the response here
        if (options_.mode == Mode::reset) {
          reset(client);
        } else {
          ::shutdown(client, SHUT_RDWR);
          ::close(client);
        }
        client = -1;
        client_open = false;
      }
      if (upstream >= 0 && !upstream_open && pending.empty()) break;  // the server closed: so do we
    }
    if (client >= 0) ::close(client);
    if (upstream >= 0) ::close(upstream);
  }

  uint16_t upstream_port_;
  ProxyOptions options_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

}  // namespace sb::testing
