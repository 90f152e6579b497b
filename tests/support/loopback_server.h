#pragma once
// Plain-socket pieces of the one-shot loopback servers that tests write by hand (tests that
// need exact control of what bytes go when): a listener on 127.0.0.1 at an ephemeral port, and
// reading a request's head.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace sb::testing {

// A listening socket on 127.0.0.1 (backlog `backlog`); `port` gets its ephemeral port.
inline int loopback_listener(uint16_t& port, int backlog = 1) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(listener, backlog), 0);
  EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  port = ntohs(addr.sin_port);
  return listener;
}

// Reads from `fd` until a request's head (up to its blank line) is in; what came is returned
// (the head and whatever followed it), or less when the peer closed first.
inline std::string read_request_head(int fd) {
  std::string req;
  char buf[4096];
  while (req.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    req.append(buf, static_cast<size_t>(n));
  }
  return req;
}

}  // namespace sb::testing
