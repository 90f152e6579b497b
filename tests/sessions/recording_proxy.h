#pragma once
// A loopback TCP proxy that forwards both ways unchanged and keeps every byte the client sent,
// so a test can read back the HTTP requests a run made (head and body). One thread per
// connection, blocking sockets polled every few ms (as tests/faults/fault_proxy.h).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sb::testing {

// One request as the client sent it.
struct SentRequest {
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class RecordingProxy {
 public:
  explicit RecordingProxy(uint16_t upstream_port) : upstream_port_(upstream_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(0);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listen_fd_, 64) != 0)
      throw std::runtime_error("proxy: cannot listen");
    socklen_t len = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~RecordingProxy() {
    stop_ = true;
    acceptor_.join();
    for (auto& t : threads_) t.join();
    ::close(listen_fd_);
  }
  RecordingProxy(const RecordingProxy&) = delete;
  RecordingProxy& operator=(const RecordingProxy&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Every request sent so far, parsed from each connection's bytes (Content-Length bodies).
  std::vector<SentRequest> requests() const {
    std::vector<SentRequest> out;
    std::lock_guard lock(mu_);
    for (const std::string& bytes : sent_) {
      size_t pos = 0;
      for (;;) {
        const size_t end = bytes.find("\r\n\r\n", pos);
        if (end == std::string::npos) break;
        SentRequest r;
        size_t line = bytes.find("\r\n", pos) + 2;  // past the request line
        while (line < end) {
          const size_t eol = bytes.find("\r\n", line);
          const std::string h = bytes.substr(line, eol - line);
          const size_t colon = h.find(':');
          std::string name = h.substr(0, colon);
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          size_t v = colon + 1;
          while (v < h.size() && h[v] == ' ') ++v;
          r.headers[name] = h.substr(v);
          line = eol + 2;
        }
        const size_t length = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
        if (end + 4 + length > bytes.size()) break;
        r.body = bytes.substr(end + 4, length);
        pos = end + 4 + length;
        out.push_back(std::move(r));
      }
    }
    return out;
  }

 private:
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
      std::lock_guard lock(mu_);
      const size_t slot = sent_.size();
      sent_.emplace_back();
      threads_.emplace_back([this, fd, slot] { serve(fd, slot); });
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

  void serve(int client, size_t slot) {
    const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(upstream_port_);
    if (::connect(upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(upstream);
      ::close(client);
      return;
    }
    char buf[65536];
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
      if (::poll(p, 2, 10) <= 0) continue;
      if (p[0].revents) {
        const ssize_t n = ::recv(client, buf, sizeof buf, 0);
        if (n <= 0) break;
        {
          std::lock_guard lock(mu_);
          sent_[slot].append(buf, static_cast<size_t>(n));
        }
        if (!write_all(upstream, buf, static_cast<size_t>(n))) break;
      }
      if (p[1].revents) {
        const ssize_t n = ::recv(upstream, buf, sizeof buf, 0);
        if (n <= 0) break;
        if (!write_all(client, buf, static_cast<size_t>(n))) break;
      }
    }
    ::close(upstream);
    ::close(client);
  }

  uint16_t upstream_port_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::vector<std::thread> threads_;  // joined by the destructor (acceptor_ stopped first)
  mutable std::mutex mu_;
  std::vector<std::string> sent_;  // per connection: every byte the client sent
};

}  // namespace sb::testing
