// The client's CPU per streamed event beside a minimal epoll reader's (issue 21, item 1):
// the same paced SSE server, the same streams, measured in the same run.
//
// Three processes: a paced server pinned to one core (one thread, epoll; every stream gets an
// OpenAI /v1/completions event every 1/rate s, each event its own HTTP chunk, keep-alive), and
// in turn, pinned to the other core, (a) the minimal reader: N sockets, level-triggered epoll,
// one read per readable socket until EAGAIN, event boundaries ("\n\n") found with memchr and
// each stamped with clock_gettime; nothing else; (b) servebench's engine with one worker (the
// whole client: HTTP, chunked decoding, SSE, JSON, records), no request log. A process's CPU is
// its rusage (user + system, every thread), so the figures hold on a loaded machine better
// than wall times; the ratio (b)/(a) is the target (<= 1.15).
//
//   event_cost_bench [rounds=2] [seconds=6] [streams=both|256|1000] [client=both|bare|sb] [rate]
// (the last three pick one level, one client and another rate of events per stream, e.g. to
// run the client under perf, or a slow rate under valgrind's callgrind to count instructions)
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_processes.h"
#include "engine/engine.h"
#include "net/url.h"

namespace {

using namespace sb;
using namespace bench;

// One OpenAI completion event, as vLLM writes it, in its own HTTP chunk.
std::string event_chunk(bool last) {
  const std::string e = fmt::format(
      "data: {{\"id\":\"cmpl-000000000000002a00000000000004d2\",\"object\":\"text_completion\","
      "\"created\":1764720000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"text\":\" token\","
      "\"logprobs\":null,\"finish_reason\":{},\"stop_reason\":null}}]}}\n\n{}",
      last ? "\"length\"" : "null", last ? "data: [DONE]\n\n" : "");
  return fmt::format("{:x}\r\n{}\r\n", e.size(), e);
}

// The paced server: serves until stop_fd reads end of file. Each request (a POST with a
// Content-Length) gets `tokens` events, one every `interval_ns`, from the time it arrived.
void serve_paced(int stop_fd, int port_fd, int64_t tokens, int64_t interval_ns) {
  const int lfd = loopback_listener();
  const uint16_t port = port_of(lfd);
  if (::write(port_fd, &port, sizeof port) != sizeof port) _exit(1);
  const int ep = ::epoll_create1(0);
  epoll_add(ep, lfd);
  epoll_add(ep, stop_fd);
  RawStreams streams;
  const std::string head =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
      "transfer-encoding: chunked\r\n\r\n";
  const std::string mid = event_chunk(false);
  const std::string end = event_chunk(true) + "0\r\n\r\n";
  epoll_event evs[512];
  for (;;) {
    int64_t next_due = INT64_MAX;
    for (int fd : streams.open)
      if (streams.at(fd).left > 0) next_due = std::min(next_due, streams.at(fd).next_ns);
    const int64_t wait_ns = next_due == INT64_MAX ? -1 : std::max<int64_t>(0, next_due - now_ns());
    const int n = ::epoll_wait(
        ep, evs, 512, wait_ns < 0 ? -1 : static_cast<int>((wait_ns + 999'999) / 1'000'000));
    for (int i = 0; i < n; ++i) {
      const int fd = evs[i].data.fd;
      if (fd == stop_fd) return;
      if (RawStreams::Conn* c = streams.on_event(fd, lfd, ep, head)) {
        c->left = tokens;
        c->next_ns = now_ns() + interval_ns;
      }
    }
    const int64_t t = now_ns();
    for (int fd : streams.open) {
      RawStreams::Conn& c = streams.at(fd);
      if (c.left <= 0 || c.next_ns > t) continue;
      const std::string& out = c.left == 1 ? end : mid;
      if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(out.size())) {
        --c.left;
        c.next_ns += interval_ns;
      }
    }
  }
}

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the server: its stop pipe; a client: its result pipe
};

Child spawn_server(int64_t tokens, int64_t interval_ns, uint16_t& port) {
  int port_pipe[2], stop_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(stop_pipe) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(port_pipe[0]);
    close(stop_pipe[1]);
    pin_to_core(1);
    raise_fd_limit();
    serve_paced(stop_pipe[0], port_pipe[1], tokens, interval_ns);
    _exit(0);
  }
  close(port_pipe[1]);
  close(stop_pipe[0]);
  if (read(port_pipe[0], &port, sizeof port) != sizeof port) std::abort();
  close(port_pipe[0]);
  return {pid, stop_pipe[1]};
}

uint64_t servebench_client(uint16_t port, int streams, int64_t requests, int64_t tokens) {
  engine::EngineConfig c;
  c.client.url = net::parse_url(fmt::format("http://127.0.0.1:{}", port));
  c.adapter.api = protocol::Api::openai;
  c.adapter.model = "m";
  c.workers = 1;
  c.load.concurrency = streams;
  c.load.num_requests = requests;
  c.workload.input_tokens = 16;
  c.workload.output_tokens = tokens;
  c.timeouts.first_token = std::chrono::seconds(120);
  c.timeouts.total = std::chrono::seconds(600);
  const auto result = engine::run_benchmark(c, {});
  uint64_t events = 0;
  for (const auto& r : result.records) events += r.ok() ? r.events : 0;
  return events;
}

// Each stream asks `seconds` one-second answers of `rate` events in turn, or, with a slow rate,
// answers of 100 events (so that a request's own set-up weighs as at the default rates).
void level(int streams, int rate, int seconds, int rounds, const std::string& client) {
  const int64_t tokens = std::max(rate, 100);
  const int64_t requests =
      std::max<int64_t>(1, static_cast<int64_t>(streams) * seconds * rate / tokens);
  fmt::print("== {} streams x {} events/s, {} s per client, {} events expected ==\n", streams, rate,
             seconds, requests * tokens);
  std::vector<double> ratios;
  for (int round = 1; round <= rounds; ++round) {
    uint16_t port = 0;
    Child server = spawn_server(tokens, 1'000'000'000 / rate, port);
    Measured bare, sb;
    const std::string request =
        "POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        "content-length: 2\r\n\r\n{}";
    if (client != "sb")  // the events and [DONE]
      bare = in_child([&] {
        return minimal_reader(port, streams, requests, request, tokens + 1) *
               static_cast<uint64_t>(tokens);
      });
    if (client != "bare")
      sb = in_child([&] { return servebench_client(port, streams, requests, tokens); });
    close(server.fd);
    int status = 0;
    rusage u{};
    wait4(server.pid, &status, 0, &u);
    auto row = [](const char* name, const Measured& m) {
      fmt::print(
          "  {:18} {:8} events in {:5.1f} s: user {:6.3f} s, system {:6.3f} s -> {:5.2f} us CPU "
          "per event (user {:4.2f})\n",
          name, m.events, m.wall_s, m.cpu.user_s, m.cpu.system_s, m.us_per_event(),
          m.cpu.user_s / static_cast<double>(m.events) * 1e6);
    };
    fmt::print(" round {}\n", round);
    if (bare.events > 0) row("minimal reader", bare);
    if (sb.events > 0) row("servebench", sb);
    if (bare.events > 0 && sb.events > 0) {
      ratios.push_back(sb.us_per_event() / bare.us_per_event());
      fmt::print("  ratio servebench / minimal reader: {:.2f}x (target <= 1.15x)\n", ratios.back());
    }
  }
  if (ratios.size() > 1) {  // the rounds drift apart on a shared machine: their middle
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    const double median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    fmt::print(" {} streams: median ratio of {} rounds {:.2f}x (range {:.2f}-{:.2f}x)\n", streams,
               n, median, ratios.front(), ratios.back());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 6;
  const std::string streams = argc > 3 ? argv[3] : "both";
  const std::string client = argc > 4 ? argv[4] : "both";
  const int rate = argc > 5 ? std::atoi(argv[5]) : 0;
  try {
    if (streams != "1000") level(256, rate > 0 ? rate : 100, seconds, rounds, client);
    if (streams != "256") level(1000, rate > 0 ? rate : 50, seconds, rounds, client);
  } catch (const std::exception& e) {
    fmt::print(stderr, "event_cost_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
