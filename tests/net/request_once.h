#pragma once
// Test helper: one request on a Connection, up to the response's header.
#include <string>

#include <gtest/gtest.h>

#include "net/connection.h"

namespace sb::net {

// Connects, sends POST / with body "{}" and reads the response's header, each step by
// `deadline`; a step that fails is a test failure.
inline awaitable<void> request_to_header(Connection& conn, TimePoint deadline) {
  std::string request;
  serialize_request(request, RequestHead{.target = "/", .host_header = "127.0.0.1"}, "{}");
  EXPECT_TRUE((co_await conn.connect(deadline)).ok());
  EXPECT_TRUE((co_await conn.write(request, deadline)).ok());
  EXPECT_TRUE((co_await conn.read_header(deadline)).ok());
}

}  // namespace sb::net
