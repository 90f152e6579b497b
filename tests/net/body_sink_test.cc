// Connection's body sink (the fast path of a streamed body): pieces that arrive while
// read_body() waits go to the sink from the event loop, the others to read_body(), each once and
// in order; a sink that says stop ends read_body() at once; a sink moves the read's deadline.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "../support/loopback_server.h"
#include "net/connection.h"
#include "net/url.h"
#include "request_once.h"

namespace sb::net {
namespace {

using namespace std::chrono_literals;

// Reads what the client still sends until it closes, then closes.
void drain_and_close(int fd) {
  char buf[256];
  while (::recv(fd, buf, sizeof buf, 0) > 0) {
  }
  ::close(fd);
}

// A one-shot loopback server: answers one request with `pieces` chunks ("piece 1\n", ...),
// `gap` apart, then the last chunk; closes when the client does.
struct PacedChunkServer {
  int listener = -1;
  uint16_t port = 0;
  std::thread thread;

  PacedChunkServer(int pieces, Nanos gap) {
    listener = testing::loopback_listener(port);
    thread = std::thread([this, pieces, gap] {
      const int fd = ::accept(listener, nullptr, nullptr);
      testing::read_request_head(fd);
      send_all(fd,
               "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
               "Transfer-Encoding: chunked\r\n\r\n");
      for (int i = 1; i <= pieces; ++i) {
        std::this_thread::sleep_for(gap);
        const std::string piece = fmt::format("piece {}\n", i);
        if (!send_all(fd, fmt::format("{:x}\r\n{}\r\n", piece.size(), piece))) break;
      }
      send_all(fd, "0\r\n\r\n");
      drain_and_close(fd);
    });
  }
  ~PacedChunkServer() {
    if (thread.joinable()) thread.join();
    ::close(listener);
  }
  static bool send_all(int fd, const std::string& s) {
    for (size_t off = 0; off < s.size();) {
      const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
};

// What a test's sink and its read_body() loop saw, in the order they saw it.
struct Seen {
  std::vector<std::string> pieces;
  std::vector<bool> by_sink;
  std::vector<TimePoint> arrived;
  int stop_at = 0;             // the sink says stop at this piece (0: never)
  Nanos move_deadline{0};      // > 0: the sink moves the read's deadline this far ahead
  Connection* conn = nullptr;  // for the deadline

  void add(std::string_view piece, TimePoint at, bool sink) {
    pieces.emplace_back(piece);
    by_sink.push_back(sink);
    arrived.push_back(at);
  }
  static bool take(void* self, std::string_view piece, TimePoint at) {
    auto& s = *static_cast<Seen*>(self);
    s.add(piece, at, true);
    if (s.stop_at > 0 && static_cast<int>(s.pieces.size()) == s.stop_at) return false;
    if (s.move_deadline > Nanos{0}) s.conn->set_read_deadline(Clock::now() + s.move_deadline);
    return true;
  }
};

struct Outcome {
  NetResult last;  // read_body's last result
  bool stopped = false, body_done = false;
  int read_body_calls = 0;
  bool finished = false;
};

// Connects to `port`, sends a request and reads the body with the sink of `seen` set, until
// the body is done, read_body fails or the sink stopped.
Outcome read_with_sink(uint16_t port, Seen& seen, Nanos read_timeout) {
  ClientOptions opts;
  opts.url = parse_url("http://127.0.0.1:" + std::to_string(port));
  ClientContext ctx(opts);
  asio::io_context io;
  Connection conn(io.get_executor(), ctx);
  seen.conn = &conn;
  Outcome out;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        const TimePoint deadline = Clock::now() + 5s;
        co_await request_to_header(conn, deadline);
        conn.set_body_sink({&Seen::take, &seen});
        const TimePoint read_deadline = Clock::now() + read_timeout;
        while (!conn.body_done()) {
          std::string_view chunk;
          TimePoint at;
          out.last = co_await conn.read_body(read_deadline, chunk, at);
          ++out.read_body_calls;
          if (conn.sink_stopped()) {
            out.stopped = true;
            break;
          }
          if (!chunk.empty()) seen.add(chunk, at, false);
          if (!out.last.ok()) break;
        }
        out.body_done = conn.body_done();
        conn.set_body_sink({});
        conn.close();
        out.finished = true;
      },
      asio::detached);
  io.run();
  return out;
}

TEST(BodySink, TakesThePiecesThatArriveWhileReadBodyWaitsAndEachPieceGoesOnce) {
  const int n = 8;
  PacedChunkServer server(n, 10ms);
  Seen seen;
  const Outcome out = read_with_sink(server.port, seen, 5s);
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.last.ok()) << out.last.message;
  EXPECT_TRUE(out.body_done);
  EXPECT_FALSE(out.stopped);
  // A piece is what one read decoded: pieces that arrive together come as one.
  std::string all, expected;
  size_t sink_bytes = 0;
  for (size_t i = 0; i < seen.pieces.size(); ++i) {
    all += seen.pieces[i];
    if (seen.by_sink[i]) sink_bytes += seen.pieces[i].size();
    if (i > 0) {
      EXPECT_GE(seen.arrived[i], seen.arrived[i - 1]);
    }
  }
  for (int i = 1; i <= n; ++i) expected += fmt::format("piece {}\n", i);
  EXPECT_EQ(all, expected) << "each piece once, in order";
  // The pieces arrive 10 ms apart, while read_body waits: the sink takes them (all but the last
  // at most, which may come with the body's end), and read_body returns only at the end of the
  // body, not once a piece.
  EXPECT_GE(sink_bytes, expected.size() - fmt::format("piece {}\n", n).size());
  EXPECT_LE(out.read_body_calls, 3);
}

// A one-shot loopback server: answers with `head`, then after `gap` with `tail` in one write.
struct TwoWriteServer {
  int listener = -1;
  uint16_t port = 0;
  std::thread thread;
  TwoWriteServer(std::string head, Nanos gap, std::string tail) {
    listener = testing::loopback_listener(port);
    thread = std::thread([this, head, gap, tail] {
      const int fd = ::accept(listener, nullptr, nullptr);
      testing::read_request_head(fd);
      PacedChunkServer::send_all(fd, head);
      std::this_thread::sleep_for(gap);
      PacedChunkServer::send_all(fd, tail);
      drain_and_close(fd);
    });
  }
  ~TwoWriteServer() {
    if (thread.joinable()) thread.join();
    ::close(listener);
  }
};

TEST(BodySink, ASizedBodyFollowedByTheNextResponseEndsAtItsLength) {
  // The body arrives while read_body waits (the fast path), in one read with the bytes of a
  // pipelined next response: those stay for the next read_header (Beast is not given them).
  TwoWriteServer server("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 30ms,
                        "helloHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  Seen seen;
  const Outcome out = read_with_sink(server.port, seen, 5s);
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.last.ok()) << out.last.message;
  EXPECT_TRUE(out.body_done);
  std::string all;
  for (const auto& p : seen.pieces) all += p;
  EXPECT_EQ(all, "hello");
}

TEST(BodySink, ASinkThatSaysStopEndsReadBodyAtOnce) {
  PacedChunkServer server(4, 100ms);  // the stop comes at piece 2, 200 ms before the rest
  Seen seen;
  seen.stop_at = 2;
  const TimePoint t0 = Clock::now();
  const Outcome out = read_with_sink(server.port, seen, 5s);
  const Nanos took = Clock::now() - t0;
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.stopped);
  EXPECT_TRUE(out.last.ok());
  EXPECT_FALSE(out.body_done);
  ASSERT_EQ(seen.pieces.size(), 2u) << "nothing is taken after a stop";
  EXPECT_EQ(seen.pieces[1], "piece 2\n");
  EXPECT_LT(took, 350ms) << "read_body returned at the stop, not at the end of the body";
}

TEST(BodySink, ASinkMovesTheDeadlineOfTheReadUnderWay) {
  // Six pieces 40 ms apart take 240 ms, past read_body's 100 ms deadline; the sink moves it
  // 100 ms past each piece, so the read never times out.
  PacedChunkServer server(6, 40ms);
  Seen seen;
  seen.move_deadline = 100ms;
  const Outcome out = read_with_sink(server.port, seen, 100ms);
  ASSERT_TRUE(out.finished);
  EXPECT_TRUE(out.last.ok()) << out.last.message;
  EXPECT_TRUE(out.body_done);
  EXPECT_EQ(seen.pieces.size(), 6u);
}

TEST(BodySink, WithoutTheMoveTheSameReadTimesOut) {
  PacedChunkServer server(6, 40ms);
  Seen seen;
  const Outcome out = read_with_sink(server.port, seen, 100ms);
  ASSERT_TRUE(out.finished);
  EXPECT_EQ(out.last.status, NetStatus::timeout) << out.last.message;
  EXPECT_LT(seen.pieces.size(), 6u);
}

}  // namespace
}  // namespace sb::net
