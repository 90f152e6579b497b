// The kernel's floor under the client's per-event cost on this machine: no HTTP, no
// parsing, no Asio. One thread sends small messages (the size of a token event) round
// robin over N loopback TCP connections; another receives them the way the client does
// (edge-triggered epoll, one timestamped recvmsg per readable socket, until a short
// read). Prints the receiver's CPU time per read: servebench's per-event figure
// (client_bench overhead) can only be above it, and the gap is the client's own cost.
//
//   loopback_bench [connections=256] [messages=400000] [bytes=150]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "net/rx_timestamp.h"

namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::perror(what);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int conns = argc > 1 ? std::atoi(argv[1]) : 256;
  const long messages = argc > 2 ? std::atol(argv[2]) : 400000;
  const size_t bytes = argc > 3 ? static_cast<size_t>(std::atol(argv[3])) : 150;

  const int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  check(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0, "bind");
  check(::listen(lfd, 4096) == 0, "listen");
  socklen_t len = sizeof a;
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  std::vector<int> tx, rx;
  const int one = 1;
  for (int i = 0; i < conns; ++i) {
    const int c = ::socket(AF_INET, SOCK_STREAM, 0);
    check(::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0, "connect");
    const int s = ::accept(lfd, nullptr, nullptr);
    check(s >= 0, "accept");
    ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    rx.push_back(c);  // the client side receives, as in a benchmark
    tx.push_back(s);
  }
  const int ep = ::epoll_create1(0);
  for (int i = 0; i < conns; ++i) {
    sb::net::enable_rx_timestamps(rx[static_cast<size_t>(i)]);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    ev.data.u32 = static_cast<uint32_t>(i);
    check(::epoll_ctl(ep, EPOLL_CTL_ADD, rx[static_cast<size_t>(i)], &ev) == 0, "epoll_ctl");
  }

  std::atomic<long> received_bytes{0};
  long reads = 0, waits = 0;
  double rx_cpu = 0;
  std::thread receiver([&] {
    const double cpu0 = thread_cpu_s();
    std::vector<char> buf(16384);
    epoll_event evs[256];
    const long want = messages * static_cast<long>(bytes);
    long got = 0;
    while (got < want) {
      const int n = ::epoll_wait(ep, evs, 256, 1000);
      ++waits;
      for (int i = 0; i < n; ++i) {
        const int fd = rx[evs[i].data.u32];
        for (;;) {
          const auto r = sb::net::recv_timestamped(fd, buf.data(), buf.size());
          ++reads;
          if (r.bytes <= 0) break;
          got += r.bytes;
          if (static_cast<size_t>(r.bytes) < buf.size()) break;
        }
      }
    }
    rx_cpu = thread_cpu_s() - cpu0;
    received_bytes = got;
  });

  const double tx_cpu0 = thread_cpu_s();
  const std::string msg(bytes, 'x');
  for (long m = 0; m < messages; ++m) {
    const int fd = tx[static_cast<size_t>(m % conns)];
    if (::send(fd, msg.data(), msg.size(), 0) != static_cast<ssize_t>(msg.size())) {
      std::perror("send");
      return 1;
    }
  }
  const double tx_cpu = thread_cpu_s() - tx_cpu0;
  receiver.join();

  fmt::print(
      "loopback_bench: {} messages of {} B over {} connections\n"
      "  receiver: {} reads ({:.2f} messages per read), {} epoll waits, {:.3f} s CPU\n"
      "    -> {:.2f} us CPU per read, {:.2f} us per message: at most {:.0f} k one-message reads/s "
      "per core\n"
      "  sender:   {:.2f} us CPU per send\n",
      messages, bytes, conns, reads, static_cast<double>(messages) / static_cast<double>(reads),
      waits, rx_cpu, rx_cpu / static_cast<double>(reads) * 1e6,
      rx_cpu / static_cast<double>(messages) * 1e6, static_cast<double>(reads) / rx_cpu / 1e3,
      tx_cpu / static_cast<double>(messages) * 1e6);
  return received_bytes == messages * static_cast<long>(bytes) ? 0 : 1;
}
