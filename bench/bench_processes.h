#pragma once
// Shared by the side-by-side benchmarks (event_cost_bench, sim_cost_bench): processes pinned to
// cores, their CPU from rusage, and the minimal epoll SSE reader that is the reference client.
// Header-only: each benchmark is one program.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace bench {

// Pins the calling process (every thread it starts later too) to the listed cores, modulo the
// machine's count; best effort (a 1-core machine shares it).
inline void pin_to_cores(std::initializer_list<int> cores) {
  const int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores) CPU_SET(c % std::max(1, n), &set);
  sched_setaffinity(0, sizeof set, &set);
}
inline void pin_to_core(int core) {
  pin_to_cores({core});
}

inline void raise_fd_limit() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

inline int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

struct Usage {
  double user_s = 0, system_s = 0;
  double total() const { return user_s + system_s; }
};

inline Usage usage_of(const rusage& u) {
  return {static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) / 1e6,
          static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) / 1e6};
}

// This process's CPU so far, every thread.
inline Usage self_usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return usage_of(u);
}

// --- the raw servers' pieces (client_bench, event_cost_bench, sim_cost_bench) ---

// A non-blocking listening socket on 127.0.0.1:port (0: the kernel picks one), SO_REUSEPORT set
// so that several threads' listeners may share a port. Exits the process when it cannot bind.
inline int loopback_listener(uint16_t port = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 4096) != 0)
    _exit(1);
  return fd;
}

inline uint16_t port_of(int fd) {
  sockaddr_in a{};
  socklen_t alen = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &alen);
  return ntohs(a.sin_port);
}

// Watches `fd` for input (level-triggered), with the fd as the event's data.
inline void epoll_add(int ep, int fd) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

// Accepts every pending connection of `lfd` (non-blocking, TCP_NODELAY), adds it to `ep` and
// calls on_accept(fd).
template <typename OnAccept>
void accept_all(int lfd, int ep, OnAccept on_accept) {
  for (int c; (c = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
    const int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    on_accept(c);
    epoll_add(ep, c);
  }
}

// Appends what `fd` holds to `in`; false when the peer closed the connection.
inline bool read_into(int fd, std::string& in) {
  char buf[8192];
  ssize_t r;
  while ((r = ::recv(fd, buf, sizeof buf, 0)) > 0) in.append(buf, static_cast<size_t>(r));
  return r != 0;
}

// Removes one whole request (its head and a Content-Length body) from the front of `in`; false
// while it has not all arrived.
inline bool take_request(std::string& in) {
  const size_t hdr = in.find("\r\n\r\n");
  if (hdr == std::string::npos) return false;
  std::string head = in.substr(0, hdr);
  std::transform(head.begin(), head.end(), head.begin(), ::tolower);
  const size_t cl = head.find("content-length:");
  const size_t body = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 15));
  if (in.size() < hdr + 4 + body) return false;
  in.erase(0, hdr + 4 + body);
  return true;
}

// The raw streaming servers' connections, by descriptor (event_cost_bench, sim_cost_bench).
struct RawStreams {
  struct Conn {
    std::string in;
    int64_t left = 0;     // events still to send on the current response
    int64_t next_ns = 0;  // when the next one is due (servers that pace per stream)
  };
  std::vector<Conn> conns;  // indexed by descriptor
  std::vector<int> open;    // descriptors with a Conn

  Conn& at(int fd) { return conns[static_cast<size_t>(fd)]; }

  // One readiness event of the listener `lfd` or of a connection: accepts (into `ep`), reads,
  // closes a connection its peer closed, and answers a whole request that arrived on an idle
  // stream with `head`. Returns that stream (the caller sets what it owes), else null.
  Conn* on_event(int fd, int lfd, int ep, const std::string& head) {
    if (fd == lfd) {
      accept_all(lfd, ep, [&](int c) {
        if (conns.size() <= static_cast<size_t>(c)) conns.resize(static_cast<size_t>(c) + 1);
        at(c) = Conn{};
        open.push_back(c);
      });
      return nullptr;
    }
    Conn& c = at(fd);
    if (!read_into(fd, c.in)) {
      ::close(fd);
      open.erase(std::find(open.begin(), open.end(), fd));
      return nullptr;
    }
    if (c.left > 0 || !take_request(c.in)) return nullptr;
    if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) < 0) return nullptr;
    return &c;
  }
};

// The minimal reader: `streams` connections to 127.0.0.1:port, `requests` requests in all
// (closed loop: a stream sends its next `request` when its response ended), each response
// `boundaries` SSE events ("\n\n") followed by the 7 bytes that end a chunked body
// ("\r\n0\r\n\r\n"). Level-triggered epoll, one recv per readable socket until EAGAIN, event
// boundaries found with memchr, each stamped with clock_gettime; nothing else. Returns the
// responses it read whole.
inline uint64_t minimal_reader(uint16_t port, int streams, int64_t requests,
                               const std::string& request, int64_t boundaries) {
  const int ep = ::epoll_create1(0);
  struct Stream {
    int64_t boundaries = 0;  // "\n\n" seen in this response
    int64_t trailer = 0;     // bytes after the last boundary (the final chunk's 7)
    bool newline = false;    // the last byte read was '\n'
  };
  std::vector<Stream> st(static_cast<size_t>(streams));
  std::vector<int> fds(static_cast<size_t>(streams));
  std::vector<int64_t> stamps(static_cast<size_t>(boundaries + 1) * static_cast<size_t>(streams));
  int64_t sent = 0, done = 0;
  for (int i = 0; i < streams; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) std::abort();
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fds[static_cast<size_t>(i)] = fd;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = static_cast<uint32_t>(i);
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (sent<requests&& ::send(fd, request.data(), request.size(), MSG_NOSIGNAL)> 0) ++sent;
  }
  epoll_event evs[512];
  char buf[65536];
  while (done < requests) {
    const int n = ::epoll_wait(ep, evs, 512, -1);
    for (int k = 0; k < n; ++k) {
      const size_t i = evs[k].data.u32;
      Stream& s = st[i];
      int64_t* stamp = &stamps[i * static_cast<size_t>(boundaries + 1)];
      for (;;) {
        const ssize_t r = ::recv(fds[i], buf, sizeof buf, MSG_DONTWAIT);
        if (r <= 0) break;
        const int64_t t = now_ns();
        const char* p = buf;
        const char* e = buf + r;
        if (s.boundaries == boundaries) s.trailer += r;
        while (s.boundaries < boundaries) {
          if (s.newline && p < e && *p == '\n') {
            stamp[s.boundaries++] = t;
            s.newline = false;
            ++p;
            if (s.boundaries == boundaries) s.trailer = e - p;
            continue;
          }
          if (p == e) break;  // keeps `newline` for the next read
          const void* nl = std::memchr(p, '\n', static_cast<size_t>(e - p));
          if (!nl) {
            s.newline = false;
            break;
          }
          p = static_cast<const char*>(nl) + 1;
          s.newline = true;
        }
        if (s.boundaries == boundaries && s.trailer >= 7) {
          ++done;
          s = Stream{};
          if (sent<requests&& ::send(fds[i], request.data(), request.size(), MSG_NOSIGNAL)> 0)
            ++sent;
        }
      }
    }
  }
  for (int fd : fds) ::close(fd);
  ::close(ep);
  return static_cast<uint64_t>(done);
}

struct Measured {
  Usage cpu;
  uint64_t events = 0;
  double wall_s = 0;
  double us_per_event() const { return cpu.total() / static_cast<double>(events) * 1e6; }
};

// Runs `client` (returning the events it counted) in a child process pinned to `core`; the
// child's rusage is the client's alone.
template <typename Client>
Measured in_child(Client client, int core = 0) {
  int out[2];
  if (pipe(out) != 0) std::abort();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    pin_to_core(core);
    raise_fd_limit();
    const uint64_t events = client();
    if (write(out[1], &events, sizeof events) != sizeof events) _exit(1);
    _exit(0);
  }
  close(out[1]);
  Measured m;
  if (read(out[0], &m.events, sizeof m.events) != sizeof m.events) m.events = 0;
  close(out[0]);
  int status = 0;
  rusage u{};
  wait4(pid, &status, 0, &u);
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.cpu = usage_of(u);
  return m;
}

}  // namespace bench
