// Kernel receive stamps: bytes that waited in the socket while the reader was
// busy get their arrival time, not the time they were read.
#include "net/rx_timestamp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

#include "../support/loopback_server.h"

namespace sb::net {
namespace {

using namespace std::chrono_literals;

TEST(SteadyArrival, SubtractsTheLagFromSteadyNow) {
  const TimePoint now{Nanos(10'000'000'000)};
  EXPECT_EQ(steady_arrival(1'000'000'000, 1'000'250'000, now), now - Nanos(250'000));
  EXPECT_EQ(steady_arrival(5, 5, now), now);
}

TEST(SteadyArrival, AStampAfterNowIsClampedToNow) {
  const TimePoint now{Nanos(10'000'000'000)};
  EXPECT_EQ(steady_arrival(2'000'000'000, 1'000'000'000, now), now);
}

// A connected loopback TCP pair made with plain sockets.
struct TcpPair {
  int client = -1, server = -1;
  TcpPair() {
    uint16_t port = 0;
    const int listener = testing::loopback_listener(port);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
  }
  ~TcpPair() {
    ::close(client);
    ::close(server);
  }
};

TEST(RecvTimestamped, EmptySocketSaysEagain) {
  TcpPair p;
  char buf[16];
  const RxResult r = recv_timestamped(p.client, buf, sizeof buf);
  EXPECT_LT(r.bytes, 0);
  EXPECT_TRUE(r.error == EAGAIN || r.error == EWOULDBLOCK);
}

// Linux turns stamping on lazily (RxStampingHold's comment): wait until a
// priming byte comes back stamped, at most a second.
bool stamping_active(const TcpPair& p) {
  for (int i = 0; i < 100; ++i) {
    if (::send(p.server, "p", 1, 0) != 1) return false;
    std::this_thread::sleep_for(10ms);
    char c;
    if (recv_timestamped(p.client, &c, 1).kernel_stamp) return true;
  }
  return false;
}

TEST(RecvTimestamped, BytesThatWaitedKeepTheirArrivalTime) {
  const RxStampingHold hold;
  TcpPair p;
  ASSERT_TRUE(enable_rx_timestamps(p.client));
  ASSERT_TRUE(stamping_active(p)) << "the kernel never stamped a received segment";
  const TimePoint sent = Clock::now();
  ASSERT_EQ(::send(p.server, "hello", 5, 0), 5);
  std::this_thread::sleep_for(80ms);  // the "busy event loop"
  char buf[16];
  const RxResult r = recv_timestamped(p.client, buf, sizeof buf);
  const TimePoint read_done = Clock::now();
  ASSERT_EQ(r.bytes, 5);
  EXPECT_TRUE(r.kernel_stamp);
  // The stamp is within a few ms of the send, and well before the read.
  EXPECT_GE(r.arrived, sent - 1ms);
  EXPECT_LT(r.arrived, sent + 20ms);
  EXPECT_GT(read_done - r.arrived, 60ms);
}

TEST(RecvTimestamped, WithoutTheOptionTheReadTimeIsUsed) {
  const RxStampingHold hold;  // stamping on system-wide, yet not asked for on this socket
  TcpPair p;
  ASSERT_EQ(::send(p.server, "x", 1, 0), 1);
  std::this_thread::sleep_for(30ms);
  const TimePoint before = Clock::now();
  char buf[4];
  const RxResult r = recv_timestamped(p.client, buf, sizeof buf);
  ASSERT_EQ(r.bytes, 1);
  EXPECT_FALSE(r.kernel_stamp);
  EXPECT_GE(r.arrived, before);
}

TEST(RecvTimestamped, OrderlyShutdownReadsZero) {
  TcpPair p;
  ::shutdown(p.server, SHUT_WR);
  std::this_thread::sleep_for(10ms);
  char buf[4];
  EXPECT_EQ(recv_timestamped(p.client, buf, sizeof buf).bytes, 0);
}

}  // namespace
}  // namespace sb::net
