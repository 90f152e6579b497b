// The simulator's CPU per streamed token and its emission lateness beside a minimal epoll
// writer's (issue 21, item 5): the same streams, the same reader, measured in the same run.
//
// Per level and round, two servers in turn, each in a process of its own (one core, or both
// for two threads), read by the minimal reader (bench_processes.h) pinned to core 0:
//  (a) the minimal writer: one epoll loop per thread (SO_REUSEPORT listeners), continuous
//      batching's rhythm: every 1/rate s a step boundary at which every running stream gets one
//      TGI token event, a fixed byte string in its own HTTP chunk; each send stamped against
//      the step's due time; nothing else;
//  (b) servebench's simulator (sim::Server, preset `instant` with one decode step every 1/rate
//      s and a batch that holds every stream): HTTP parsing, the scheduler, the formatter, the
//      trace; its lateness is the trace's token write time - the model's due time.
// CPU per token is the server process's rusage over the tokens it wrote; the ratio (b)/(a) is
// the target (<= 1.5). Lateness p99 is printed side by side: continuous batching makes a
// step's writes one burst, so the kernel's cost of the burst is the floor of both.
//
//   sim_cost_bench [rounds=2] [seconds=6] [level=all|256|1000|1000x2] [server=both|writer|sim]
// (the last two pick one level or one server, e.g. to run the simulator under perf)
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench_processes.h"
#include "sim/server.h"

namespace {

using namespace bench;

struct ServerResult {
  Usage cpu;
  uint64_t tokens = 0;
  double late_p50_ms = 0, late_p99_ms = 0, late_max_ms = 0;
  double us_per_token() const { return cpu.total() / static_cast<double>(tokens) * 1e6; }
};

ServerResult lateness_of(std::vector<int64_t>& late_ns) {
  ServerResult r;
  r.tokens = late_ns.size();
  if (late_ns.empty()) return r;
  std::sort(late_ns.begin(), late_ns.end());
  const auto at = [&](double p) {
    return static_cast<double>(late_ns[std::min(late_ns.size() - 1,
                                                static_cast<size_t>(p / 100 * late_ns.size()))]) /
           1e6;
  };
  r.late_p50_ms = at(50);
  r.late_p99_ms = at(99);
  r.late_max_ms = static_cast<double>(late_ns.back()) / 1e6;
  return r;
}

// One TGI token event in its own HTTP chunk, the size the simulator writes; the last one
// carries generated_text and the chunked body's end.
std::string tgi_chunk(bool last) {
  const std::string e = fmt::format(
      "data:{{\"index\":7,\"token\":{{\"id\":4242,\"text\":\" token\",\"logprob\":-0.1234,"
      "\"special\":false}},\"generated_text\":{},\"details\":null}}\n\n",
      last ? "\" token token\"" : "null");
  return fmt::format("{:x}\r\n{}\r\n{}", e.size(), e, last ? "0\r\n\r\n" : "");
}

// One thread of the minimal writer: its listener's connections, until stop_fd reads EOF.
// Stamps every token write's lateness (write time - its step's due time) into `late_ns`.
void writer_loop(int lfd, int stop_fd, int64_t start_ns, int64_t interval_ns, int64_t tokens,
                 std::vector<int64_t>& late_ns) {
  const int ep = ::epoll_create1(0);
  epoll_add(ep, lfd);
  epoll_add(ep, stop_fd);
  RawStreams streams;
  const std::string head =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
  const std::string mid = tgi_chunk(false), end = tgi_chunk(true);
  int64_t step = 1;  // the next step boundary: start_ns + step * interval_ns
  epoll_event evs[512];
  for (;;) {
    const int64_t due = start_ns + step * interval_ns;
    const int64_t wait_ns = std::max<int64_t>(0, due - now_ns());
    const int n = ::epoll_wait(ep, evs, 512, static_cast<int>((wait_ns + 999'999) / 1'000'000));
    for (int i = 0; i < n; ++i) {
      const int fd = evs[i].data.fd;
      if (fd == stop_fd) {
        for (int c : streams.open) ::close(c);
        ::close(ep);
        return;
      }
      if (RawStreams::Conn* c = streams.on_event(fd, lfd, ep, head))
        c->left = tokens;  // its first token at the next step boundary
    }
    if (now_ns() < due) continue;
    for (int fd : streams.open) {  // the step: one token to every running stream
      RawStreams::Conn& c = streams.at(fd);
      if (c.left <= 0) continue;
      const std::string& out = c.left == 1 ? end : mid;
      if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(out.size())) {
        late_ns.push_back(now_ns() - due);
        --c.left;
      }
    }
    ++step;
  }
}

struct Child {
  pid_t pid = -1;
  int stop_fd = -1;    // closed by the parent to stop the server
  int result_fd = -1;  // the server's ServerResult
};

// Forks a server process pinned to core 1 (one thread) or both cores; `serve` gets the stop
// pipe's read end and returns its result after the stop; the port it bound comes back first.
template <typename Serve>
Child spawn(int threads, uint16_t& port, Serve serve) {
  int port_pipe[2], stop_pipe[2], result_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(stop_pipe) != 0 || pipe(result_pipe) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(port_pipe[0]);
    close(stop_pipe[1]);
    close(result_pipe[0]);
    if (threads == 1)
      pin_to_core(1);
    else
      pin_to_cores({0, 1});
    raise_fd_limit();
    const ServerResult r = serve(stop_pipe[0], port_pipe[1]);
    if (write(result_pipe[1], &r, sizeof r) != sizeof r) _exit(1);
    _exit(0);
  }
  close(port_pipe[1]);
  close(stop_pipe[0]);
  close(result_pipe[1]);
  if (read(port_pipe[0], &port, sizeof port) != sizeof port) std::abort();
  close(port_pipe[0]);
  return {pid, stop_pipe[1], result_pipe[0]};
}

ServerResult stop(Child& c) {
  close(c.stop_fd);
  ServerResult r;
  if (read(c.result_fd, &r, sizeof r) != sizeof r) r = ServerResult{};
  close(c.result_fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  return r;
}

ServerResult minimal_writer(int stop_fd, int port_fd, int threads, int64_t tokens,
                            int64_t interval_ns) {
  const int first = loopback_listener();
  const uint16_t port = port_of(first);
  std::vector<int> listeners = {first};
  for (int t = 1; t < threads; ++t) listeners.push_back(loopback_listener(port));
  if (::write(port_fd, &port, sizeof port) != sizeof port) _exit(1);
  std::vector<std::vector<int64_t>> late(static_cast<size_t>(threads));
  const int64_t start = now_ns();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      writer_loop(listeners[static_cast<size_t>(t)], stop_fd, start, interval_ns, tokens,
                  late[static_cast<size_t>(t)]);
    });
  for (auto& th : pool) th.join();
  const Usage cpu = self_usage();
  std::vector<int64_t> all;
  for (auto& l : late) all.insert(all.end(), l.begin(), l.end());
  ServerResult r = lateness_of(all);
  r.cpu = cpu;
  return r;
}

ServerResult simulator(int stop_fd, int port_fd, int threads, int streams, double rate) {
  sb::sim::SimConfig c = sb::sim::preset_config("instant");
  c.cost.decode_step_ms = 1000.0 / rate;
  c.sched.max_batch_size = streams + 1;
  c.server.threads = threads;
  sb::sim::Server server(c);
  const uint16_t port = server.start();
  if (::write(port_fd, &port, sizeof port) != sizeof port) _exit(1);
  char byte;
  while (::read(stop_fd, &byte, 1) > 0) {
  }
  server.wait_idle(std::chrono::seconds(2));
  const Usage cpu = self_usage();  // the serving, not the lateness arithmetic below
  const auto trace = server.trace();
  server.stop();
  std::vector<int64_t> late;
  for (const auto& rec : trace)
    for (size_t i = 0; i < rec.token_ns.size() && i < rec.token_due_ns.size(); ++i)
      late.push_back(rec.token_ns[i] - rec.token_due_ns[i]);
  ServerResult r = lateness_of(late);
  r.cpu = cpu;
  return r;
}

void level(int streams, int rate, int threads, int seconds, int rounds, const std::string& only) {
  const int64_t tokens = rate;  // one-second answers
  const int64_t requests = static_cast<int64_t>(streams) * seconds;
  const std::string body =
      fmt::format(R"({{"inputs":"abcd","parameters":{{"max_new_tokens":{}}}}})", tokens);
  const std::string request = fmt::format(
      "POST /generate_stream HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
      "content-length: {}\r\n\r\n{}",
      body.size(), body);
  fmt::print("== {} streams x {} tokens/s, {} server thread{}, {} s: {} tokens expected ==\n",
             streams, rate, threads, threads == 1 ? "" : "s", seconds, requests * tokens);
  const auto row = [](const char* name, const ServerResult& r, const Measured& client) {
    fmt::print(
        "  {:16} {:8} tokens ({} responses read): user {:6.3f} s, system {:6.3f} s -> {:5.2f} us "
        "CPU per token; lateness p50 {:6.2f} ms, p99 {:6.2f} ms, max {:6.2f} ms\n",
        name, r.tokens, client.events, r.cpu.user_s, r.cpu.system_s, r.us_per_token(),
        r.late_p50_ms, r.late_p99_ms, r.late_max_ms);
  };
  for (int round = 1; round <= rounds; ++round) {
    fmt::print(" round {}\n", round);
    ServerResult results[2];
    const char* names[2] = {"minimal writer", "simulator"};
    for (int which = 0; which < 2; ++which) {
      if ((which == 0 && only == "sim") || (which == 1 && only == "writer")) continue;
      uint16_t port = 0;
      Child server = spawn(threads, port, [&](int stop_fd, int port_fd) {
        return which == 0 ? minimal_writer(stop_fd, port_fd, threads, tokens, 1'000'000'000 / rate)
                          : simulator(stop_fd, port_fd, threads, streams, rate);
      });
      const Measured client =
          in_child([&] { return minimal_reader(port, streams, requests, request, tokens); });
      results[which] = stop(server);
      row(names[which], results[which], client);
    }
    if (results[0].tokens > 0 && results[1].tokens > 0)
      fmt::print(
          "  ratio simulator / minimal writer: {:.2f}x CPU per token (target <= 1.5x); lateness "
          "p99 {:.2f} vs {:.2f} ms\n",
          results[1].us_per_token() / results[0].us_per_token(), results[1].late_p99_ms,
          results[0].late_p99_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 6;
  const std::string which = argc > 3 ? argv[3] : "all";
  const std::string only = argc > 4 ? argv[4] : "both";
  try {
    if (which == "all" || which == "256") level(256, 100, 1, seconds, rounds, only);
    if (which == "all" || which == "1000") level(1000, 50, 1, seconds, rounds, only);
    if (which == "all" || which == "1000x2") level(1000, 50, 2, seconds, rounds, only);
  } catch (const std::exception& e) {
    fmt::print(stderr, "sim_cost_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
