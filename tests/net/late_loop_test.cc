// The arrival time of body bytes is when they reached the socket, even when the
// event loop is busy at that moment (docs/metrics.md: the client must not add its own
// lateness to the server's timeline).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "../support/loopback_server.h"
#include "net/connection.h"
#include "net/rx_timestamp.h"
#include "net/url.h"
#include "request_once.h"

namespace sb::net {
namespace {

using namespace std::chrono_literals;

void send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// A one-shot loopback server: answers one request with a chunked body whose
// second chunk is sent `gap` after the first, and records when it sent it.
struct TwoChunkServer {
  int listener = -1;
  uint16_t port = 0;
  std::atomic<int64_t> second_sent_ns{0};  // steady clock, ns since epoch
  std::atomic<bool> client_busy{false};    // the client read the first chunk and is busy
  std::thread thread;

  explicit TwoChunkServer(Nanos gap) {
    listener = testing::loopback_listener(port);
    thread = std::thread([this, gap] {
      const int fd = ::accept(listener, nullptr, nullptr);
      testing::read_request_head(fd);
      send_all(fd,
               "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
               "Transfer-Encoding: chunked\r\n\r\n6\r\nfirst\n\r\n");
      for (int i = 0; i < 500 && !client_busy; ++i) std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(gap);
      second_sent_ns = Clock::now().time_since_epoch().count();
      send_all(fd, "7\r\nsecond\n\r\n0\r\n\r\n");
      std::this_thread::sleep_for(200ms);
      ::close(fd);
    });
  }
  ~TwoChunkServer() {
    if (thread.joinable()) thread.join();
    ::close(listener);
  }
};

TEST(LateEventLoop, SecondChunkKeepsItsSocketArrivalTime) {
  const RxStampingHold hold;          // as run_benchmark holds it for a run
  std::this_thread::sleep_for(50ms);  // stamping switches on lazily
  TwoChunkServer server(20ms);
  ClientOptions opts;
  opts.url = parse_url("http://127.0.0.1:" + std::to_string(server.port));
  ClientContext ctx(opts);
  asio::io_context io;
  Connection conn(io.get_executor(), ctx);
  TimePoint first_at, second_at;
  std::string first, second;
  bool done = false;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        const TimePoint deadline = Clock::now() + 5s;
        co_await request_to_header(conn, deadline);
        std::string_view chunk;
        EXPECT_TRUE((co_await conn.read_body(deadline, chunk, first_at)).ok());
        first = std::string(chunk);
        // The loop is now busy for 200 ms: the second chunk arrives meanwhile.
        server.client_busy = true;
        std::this_thread::sleep_for(200ms);
        EXPECT_TRUE((co_await conn.read_body(deadline, chunk, second_at)).ok());
        second = std::string(chunk);
        conn.close();  // no deadline timer left to keep the loop running
        done = true;
      },
      asio::detached);
  io.run();
  ASSERT_TRUE(done);
  EXPECT_EQ(first, "first\n");
  EXPECT_EQ(second, "second\n");
  const TimePoint sent{Nanos(server.second_sent_ns.load())};
  // Without kernel stamps the recorded arrival would be ~180 ms after the send; 40 ms leaves room
  // for a preempted server thread on a loaded machine.
  EXPECT_GE(second_at, sent - 1ms);
  EXPECT_LT(second_at - sent, 40ms)
      << "arrival recorded " << to_ms(second_at - sent) << " ms after the send";
}

}  // namespace
}  // namespace sb::net
