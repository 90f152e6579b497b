#pragma once
// A tiny blocking HTTP/1.1 client over POSIX sockets for the simulator tests:
// bounded by a receive timeout so a test can never hang.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace sb::sim::testing {

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // de-chunked
  bool complete = false;                       // the whole response arrived
  bool reset = false;                          // the connection was reset
  bool closed = false;                         // the peer closed the connection
};

class Conn {
 public:
  // rcvbuf_bytes > 0: the receive buffer's size (set before connecting, so the window is small).
  explicit Conn(uint16_t port, int timeout_ms = 5000, int rcvbuf_bytes = 0)
      : timeout_ms_(timeout_ms) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf_bytes > 0)
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf_bytes, sizeof rcvbuf_bytes);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("connect failed");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Conn() {
    if (fd_ >= 0) ::close(fd_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  void send_raw(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }

  void send(const std::string& method, const std::string& path, const std::string& body = "",
            const std::string& extra_headers = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\n" + extra_headers;
    if (!body.empty() || method == "POST")
      req += "content-type: application/json\r\ncontent-length: " + std::to_string(body.size()) +
             "\r\n";
    req += "\r\n" + body;
    send_raw(req);
  }

  // Reads one response. on_chunk(data) sees each chunk's data as it arrives.
  template <class F>
  Response read(F&& on_chunk) {
    Response r;
    size_t hdr_end;
    while ((hdr_end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!fill(r)) return r;
    std::string head = buf_.substr(0, hdr_end);
    buf_.erase(0, hdr_end + 4);
    if (head.rfind("HTTP/1.1 1", 0) == 0) return read(on_chunk);  // 100 Continue: interim
    size_t sp = head.find(' ');
    r.status = std::stoi(head.substr(sp + 1, 3));
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos < head.size()) {
      size_t next = head.find("\r\n", pos + 2);
      std::string line =
          head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string k = line.substr(0, colon);
        for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
        r.headers[k] = v;
      }
      pos = next;
    }
    if (r.headers.count("content-length")) {
      size_t len = std::stoul(r.headers["content-length"]);
      while (buf_.size() < len)
        if (!fill(r)) return r;
      r.body = buf_.substr(0, len);
      buf_.erase(0, len);
      r.complete = true;
      return r;
    }
    if (r.headers["transfer-encoding"] == "chunked") {
      for (;;) {
        size_t eol;
        while ((eol = buf_.find("\r\n")) == std::string::npos)
          if (!fill(r)) return r;
        size_t len = std::stoul(buf_.substr(0, eol), nullptr, 16);
        while (buf_.size() < eol + 2 + len + 2)
          if (!fill(r)) return r;
        std::string data = buf_.substr(eol + 2, len);
        buf_.erase(0, eol + 2 + len + 2);
        if (len == 0) {
          r.complete = true;
          return r;
        }
        on_chunk(data);
        r.body += data;
      }
    }
    while (fill(r)) {
    }
    r.body = buf_;
    r.complete = true;
    return r;
  }
  Response read() {
    return read([](const std::string&) {});
  }

  // True when the peer closed the connection (reads EOF) within the timeout.
  bool peer_closed() {
    Response r;
    while (fill(r)) {
    }
    return r.closed || r.reset;
  }

 private:
  bool fill(Response& r) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms_) <= 0) return false;
    char tmp[16384];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n == 0) {
      r.closed = true;
      return false;
    }
    if (n < 0) {
      r.reset = errno == ECONNRESET;
      return false;
    }
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  int timeout_ms_;
  std::string buf_;
};

}  // namespace sb::sim::testing
