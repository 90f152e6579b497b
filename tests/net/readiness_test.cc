// Waiter / ReadinessService: a socket's edges reach its waiter whether or not a
// wait is pending, hang-ups are seen, a detached waiter's pending wait is aborted,
// and the event loop ends when no wait is left (no work leaks). The sockets are Asio
// sockets (as in the client): a Waiter watches a socket registered in Asio's reactor.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "net/readiness.h"

namespace sb::net {
namespace {

using Local = asio::local::stream_protocol;

// A connected pair: `socket` (the local end, an Asio socket on `io`) and `peer` (a plain fd).
struct SocketPair {
  Local::socket socket;
  int peer = -1;
  explicit SocketPair(asio::io_context& io) : socket(io) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    socket.assign(Local(), fds[0]);
    peer = fds[1];
  }
  ~SocketPair() {
    if (peer >= 0) ::close(peer);
  }
  void send(const char* s) const { ASSERT_GT(::write(peer, s, strlen(s)), 0); }
  size_t drain() {
    char buf[256];
    size_t total = 0;
    for (ssize_t n; (n = ::read(socket.native_handle(), buf, sizeof buf)) > 0;)
      total += static_cast<size_t>(n);
    return total;
  }
};

TEST(PendingHandler, PostsOnceAndResetDestroysWithoutCalling) {
  asio::io_context io;
  int calls = 0;
  auto alive = std::make_shared<int>(0);
  PendingHandler h;
  EXPECT_TRUE(h.empty());
  h.emplace([&calls, alive](error_code ec) {
    EXPECT_EQ(ec, asio::error::operation_aborted);
    ++calls;
  });
  EXPECT_FALSE(h.empty());
  EXPECT_EQ(alive.use_count(), 2);
  h.post(io.get_executor(), asio::error::operation_aborted);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(calls, 0);  // posted, not called in place
  io.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(alive.use_count(), 1);

  h.emplace([&calls, alive](error_code) { ++calls; });
  h.reset();
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(alive.use_count(), 1);
  EXPECT_EQ(calls, 1);
}

// A waiter on a socket pair's local end, with a wait pending once wait() ran.
class WaiterOnAPair : public ::testing::Test {
 protected:
  void wait() {
    ASSERT_TRUE(w.attach(sp.socket));
    w.async_wait([this](error_code ec) { got = ec; });
  }
  asio::io_context io;  // declared first: destroyed after the waiter and the sockets
  SocketPair sp{io};
  Waiter w;
  std::optional<error_code> got;
};

TEST_F(WaiterOnAPair, AWaitCompletesOnBytesAndTheLoopEndsWithTheLastWait) {
  wait();
  io.poll();
  EXPECT_FALSE(got) << "nothing was sent yet";
  sp.send("data: x\n\n");
  io.run();  // returns only when no wait is outstanding
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  EXPECT_FALSE(w.hung_up());
  EXPECT_EQ(sp.drain(), 9u);
}

TEST(Waiter, AnEdgeWithoutAPendingWaitIsKeptAsReady) {
  asio::io_context io;
  SocketPair sp{io};
  SocketPair other{io};
  Waiter w, wo;
  ASSERT_TRUE(w.attach(sp.socket));
  ASSERT_TRUE(wo.attach(other.socket));
  // `other` waits; `sp` receives bytes while nobody waits on it. sp's edge, which
  // epoll will not repeat, must be kept for a later wait.
  sp.send("a");
  bool other_done = false;
  wo.async_wait([&](error_code) { other_done = true; });
  other.send("b");
  io.run();
  ASSERT_TRUE(other_done);
  EXPECT_TRUE(w.take_ready());
  EXPECT_FALSE(w.take_ready()) << "taken once";
  EXPECT_EQ(sp.drain(), 1u);
}

// The bytes' edge may wake the wait before the hang-up is known; reading them then empties
// the socket of bytes (a short read), and the hang-up must still wake the next wait, as an
// edge of its own, with hung_up() set: else the reader would wait for an edge that never comes.
TEST_F(WaiterOnAPair, PeerCloseIsAHangUpEvenWhenItCameWithTheLastBytes) {
  wait();
  sp.send("last");
  ::shutdown(sp.peer, SHUT_WR);
  io.run();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  EXPECT_EQ(sp.drain(), 4u);
  if (!w.hung_up() && !w.take_ready()) {
    got.reset();
    w.async_wait([this](error_code ec) { got = ec; });
    io.restart();
    io.run();
    ASSERT_TRUE(got) << "the hang-up did not wake the wait";
    EXPECT_FALSE(*got);
  }
  EXPECT_TRUE(w.hung_up());
}

TEST_F(WaiterOnAPair, DetachAbortsThePendingWait) {
  wait();
  io.poll();
  EXPECT_FALSE(got);
  w.detach();
  EXPECT_FALSE(w.attached());
  io.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, asio::error::operation_aborted);
}

// A Waiter's operation in the reactor is not work of the loop's: an attached waiter with no
// wait pending does not keep run() from returning.
TEST(Waiter, AnAttachedWaiterWithoutAWaitIsNoWork) {
  asio::io_context io;
  SocketPair sp{io};
  Waiter w;
  ASSERT_TRUE(w.attach(sp.socket));
  io.run_for(std::chrono::seconds(5));
  EXPECT_TRUE(io.stopped()) << "run() found work left";
  sp.send("x");
  io.restart();
  io.run_for(std::chrono::seconds(5));
  EXPECT_TRUE(io.stopped());
}

// The ready hook takes bytes while the wait goes on; the wait completes when it declines.
TEST_F(WaiterOnAPair, AHookKeepsTheWaitUntilItDeclines) {
  struct Ctx {
    SocketPair* sp;
    int calls = 0;
    size_t taken = 0;
  } ctx{&sp};
  wait();
  w.set_ready_hook(
      [](void* p) {
        auto& c = *static_cast<Ctx*>(p);
        ++c.calls;
        c.taken += c.sp->drain();
        return c.calls < 3;
      },
      &ctx);
  for (int i = 1; i <= 2; ++i) {
    sp.send("ab");
    for (int turns = 0; ctx.calls < i && turns < 100; ++turns)
      io.run_one_for(std::chrono::milliseconds(50));
    ASSERT_EQ(ctx.calls, i) << "the edge did not reach the hook";
    EXPECT_FALSE(got) << "the hook took the bytes: the wait goes on";
  }
  sp.send("c");
  io.run();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  EXPECT_EQ(ctx.calls, 3);
  EXPECT_EQ(ctx.taken, 5u);
}

// Destroying the loop with a wait pending destroys its handler unrun; a Waiter that the
// handler owned goes with it, in the middle of the reactor's shutdown.
TEST(Waiter, DestroyingTheLoopDestroysAWaiterOwnedByItsPendingHandler) {
  auto io = std::make_unique<asio::io_context>();
  struct Owned {
    SocketPair sp;
    Waiter w;
    explicit Owned(asio::io_context& ctx) : sp(ctx) {}
  };
  auto owned = std::make_shared<Owned>(*io);
  ASSERT_TRUE(owned->w.attach(owned->sp.socket));
  const std::weak_ptr<Owned> weak = owned;
  bool ran = false;
  owned->w.async_wait([keep = owned, &ran](error_code) { ran = true; });
  owned.reset();
  io->poll();
  ASSERT_FALSE(weak.expired()) << "the pending handler keeps it";
  io.reset();
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(ran);
}

TEST(Waiter, ManySocketsEachWakeTheirOwnWaiter) {
  asio::io_context io;
  constexpr int kSockets = 300;  // more than one epoll_wait batch (Asio takes 128)
  std::vector<std::unique_ptr<SocketPair>> pairs;
  std::vector<std::unique_ptr<Waiter>> waiters;
  std::vector<int> woken(kSockets, 0);
  for (int i = 0; i < kSockets; ++i) {
    pairs.push_back(std::make_unique<SocketPair>(io));
    waiters.push_back(std::make_unique<Waiter>());
    ASSERT_TRUE(waiters.back()->attach(pairs.back()->socket));
    waiters.back()->async_wait([&woken, i](error_code ec) {
      if (!ec) ++woken[static_cast<size_t>(i)];
    });
  }
  for (int i = 0; i < kSockets; i += 2) pairs[static_cast<size_t>(i)]->send("x");
  io.poll();
  for (int i = 0; i < kSockets; ++i)
    EXPECT_EQ(woken[static_cast<size_t>(i)], i % 2 == 0 ? 1 : 0) << "socket " << i;
  for (auto& w : waiters) w->detach();  // the odd ones are aborted, and the loop can end
  io.run();
  for (int i = 0; i < kSockets; ++i) EXPECT_EQ(woken[static_cast<size_t>(i)], i % 2 == 0 ? 1 : 0);
}

}  // namespace
}  // namespace sb::net
