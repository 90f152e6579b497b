// Bounded connection buffers (common/buffer_trim.h): a client connection's buffers, its
// request bytes, its response recorder and SSE parser give back what a large message grew
// them to once the next message begins, so connections that each once saw a large body do
// not each keep its size. Checked through each buffer's capacity accessor, over a real
// socket for the connection and the recorder together.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "../support/loopback_server.h"
#include "common/asio.h"
#include "common/buffer_trim.h"
#include "engine/response_recorder.h"
#include "net/connection.h"
#include "protocol/adapter.h"
#include "sse/parser.h"

namespace sb {
namespace {

constexpr size_t kLarge = size_t{4} << 20;  // well above the 256 KiB bound

TEST(BufferTrim, ReleasesOnlyAboveTheBound) {
  std::string small(1000, 'x');
  const size_t cap = small.capacity();
  clear_and_trim(small);
  EXPECT_TRUE(small.empty());
  EXPECT_EQ(small.capacity(), cap);  // kept: no churn for ordinary messages
  std::string large(kLarge, 'x');
  clear_and_trim(large);
  EXPECT_TRUE(large.empty());
  EXPECT_LE(large.capacity(), kBufferKeepBytes);
}

TEST(BufferTrim, RequestBytesShrinkAfterALargeRequest) {
  std::string out;
  const std::string big(kLarge, 'p');
  net::serialize_request(out, {.target = "/generate", .host_header = "h"}, big);
  EXPECT_GE(out.capacity(), kLarge);
  net::serialize_request(out, {.target = "/generate", .host_header = "h"}, big);
  EXPECT_GE(out.capacity(), kLarge);  // large after large: the capacity is reused
  net::serialize_request(out, {.target = "/generate", .host_header = "h"}, "{}");
  EXPECT_LE(out.capacity(), kBufferKeepBytes);
  EXPECT_NE(out.find("Content-Length: 2\r\n"), std::string::npos);
}

TEST(BufferTrim, SseParserShrinksOnReset) {
  sse::Parser p(size_t{8} << 20);
  const std::string event = "data: " + std::string(kLarge, 'e') + "\n\n";
  size_t seen = 0;
  // Fed in two halves, so the event is buffered rather than viewed.
  p.feed(std::string_view(event).substr(0, event.size() / 2), [&](const sse::Event&) { ++seen; });
  p.feed(std::string_view(event).substr(event.size() / 2),
         [&](const sse::Event& e) { seen += e.data.size() == kLarge ? 1 : 100; });
  EXPECT_EQ(seen, 1u);
  EXPECT_GE(p.buffer_capacity_bytes(), kLarge);
  p.reset();
  EXPECT_LE(p.buffer_capacity_bytes(), 2 * kBufferKeepBytes);
}

TEST(BufferTrim, HundredRecordersThatEachSawAFourMiBBodyHoldLittle) {
  protocol::AdapterConfig ac;
  ac.api = protocol::Api::tgi;
  ac.stream = false;
  const auto adapter = protocol::make_adapter(ac);
  const std::string body = R"({"generated_text":")" + std::string(kLarge, 'a') + R"("})";
  std::vector<std::unique_ptr<engine::ResponseRecorder>> recorders;
  size_t held = 0;
  for (int i = 0; i < 100; ++i) {
    auto r = std::make_unique<engine::ResponseRecorder>(*adapter, false, size_t{1} << 20);
    metrics::RequestRecord first, next;
    r->begin(first);
    first.status = 200;
    r->on_body(body, 1);
    r->finish(2, true);
    EXPECT_TRUE(first.ok()) << first.error;
    EXPECT_GE(r->buffer_capacity_bytes(), kLarge);  // while the response is held
    r->begin(next);                                 // the next request on that connection
    held += r->buffer_capacity_bytes();
    recorders.push_back(std::move(r));
  }
  EXPECT_LE(held, 100 * kBufferKeepBytes);  // without the trim: 100 x 4 MiB
}

// One keep-alive connection to a raw server answering a 4 MiB body, then a small one.
TEST(BufferTrim, AConnectionAndItsRecorderAfterALargeBody) {
  uint16_t port = 0;
  const int listener = sb::testing::loopback_listener(port, 4);
  const std::string large = R"({"generated_text":")" + std::string(kLarge, 'b') + R"("})";
  std::thread server([&] {
    const int fd = ::accept(listener, nullptr, nullptr);
    for (const std::string* b : {&large, static_cast<const std::string*>(nullptr)}) {
      sb::testing::read_request_head(fd);
      const std::string body = b ? *b : R"({"generated_text":"ok"})";
      const std::string resp =
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
          "content-length: " +
          std::to_string(body.size()) + "\r\n\r\n" + body;
      for (size_t off = 0; off < resp.size();) {
        const ssize_t n = ::send(fd, resp.data() + off, resp.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    }
    ::close(fd);
  });

  net::ClientOptions o;
  o.url.host = "127.0.0.1";
  o.url.port = port;
  const net::ClientContext ctx(o);
  protocol::AdapterConfig ac;
  ac.api = protocol::Api::tgi;
  ac.stream = false;
  const auto adapter = protocol::make_adapter(ac);
  engine::ResponseRecorder recorder(*adapter, false, size_t{1} << 20);
  asio::io_context io;
  net::Connection conn(io.get_executor(), ctx);
  std::vector<size_t> recorder_after, body_sizes;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        const TimePoint deadline = Clock::now() + std::chrono::seconds(30);
        EXPECT_TRUE((co_await conn.connect(deadline)).ok());
        std::string bytes;
        for (int i = 0; i < 2; ++i) {
          metrics::RequestRecord record;
          recorder.begin(record);
          recorder_after.push_back(recorder.buffer_capacity_bytes());
          net::serialize_request(bytes, {.target = "/generate", .host_header = "h"}, "{}");
          EXPECT_TRUE((co_await conn.write(bytes, deadline)).ok());
          EXPECT_TRUE((co_await conn.read_header(deadline)).ok());
          record.status = conn.status();
          size_t got = 0;
          while (!conn.body_done()) {
            std::string_view chunk;
            TimePoint at;
            EXPECT_TRUE((co_await conn.read_body(deadline, chunk, at)).ok());
            got += chunk.size();
            recorder.on_body(chunk, 1);
          }
          recorder.finish(2, true);
          if (i == 0) {
            EXPECT_GE(recorder.buffer_capacity_bytes(), kLarge);  // held until the next
          }
          body_sizes.push_back(got);
          // Grown for the bulk reads, never beyond 2 x 64 KiB: never the body.
          EXPECT_LE(conn.buffer_capacity_bytes(), size_t{128} << 10);
        }
      },
      asio::detached);
  io.run();
  server.join();
  ::close(listener);
  ASSERT_EQ(body_sizes.size(), 2u);
  EXPECT_EQ(body_sizes[0], large.size());
  // Before the second request the recorder no longer holds the first's 4 MiB.
  ASSERT_EQ(recorder_after.size(), 2u);
  EXPECT_LE(recorder_after[1], kBufferKeepBytes);
}

}  // namespace
}  // namespace sb
