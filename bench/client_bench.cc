// End-to-end client benchmarks over loopback against the simulator, run in a
// child process so that this process's CPU time and memory are the client's
// alone. Prints figures; asserts nothing (speed is proven by benchmarks, never by timed tests).
//
//   client_bench overhead   streamed events/s per client core, CPU us per request and per event
//   client_bench saturate   the same with the client core saturated by a raw server
//   client_bench memory     resident memory per open stream at 1,000 and 5,000 streams
//   client_bench accuracy   client TTFT/ITL against the server's timeline, 1,000 streams x 50 tok/s
//   client_bench fdlimit    10,000 concurrent streams
//   client_bench            all of the above
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "bench_processes.h"
#include "engine/engine.h"
#include "net/url.h"
#include "sim/server.h"

namespace {

using namespace sb;

struct SimChild {
  pid_t pid = -1;
  int stop_fd = -1;
  uint16_t port = 0;
};

// Forks a server process (before this process starts any thread). In the child,
// serve(stop_fd, ready) starts listening, calls ready(port), and serves until
// stop_fd reads end-of-file; the child then exits.
template <typename Serve>
SimChild fork_server(Serve serve) {
  int port_pipe[2], stop_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(stop_pipe) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(port_pipe[0]);
    close(stop_pipe[1]);
    serve(stop_pipe[0], [&](uint16_t port) {
      if (write(port_pipe[1], &port, sizeof port) != sizeof port) _exit(1);
    });
    _exit(0);
  }
  close(port_pipe[1]);
  close(stop_pipe[0]);
  SimChild c{pid, stop_pipe[1], 0};
  if (read(port_pipe[0], &c.port, sizeof c.port) != sizeof c.port) std::abort();
  close(port_pipe[0]);
  return c;
}

SimChild spawn_sim(const sim::SimConfig& config) {
  return fork_server([&](int stop_fd, auto ready) {
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
    sim::Server server(config);
    ready(server.start());
    char b;
    while (read(stop_fd, &b, 1) > 0) {
    }
    server.stop();
  });
}

// Stops the child; returns the CPU seconds (user + system) it used.
double stop_sim(SimChild& c) {
  close(c.stop_fd);
  int status = 0;
  rusage u{};
  wait4(c.pid, &status, 0, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A raw streaming server that is cheaper per event than the client, so that one
// client core can be saturated on a 2-core machine (the simulator, which models a
// server, costs more per event than the client does). One thread, epoll: each
// request (any POST) gets an OpenAI /v1/completions stream of `tokens` events, one
// event per connection per round, as fast as the sockets take them (a connection
// whose send buffer is full is skipped for that round).
template <typename Ready>
void serve_raw(int stop_fd, Ready ready, int64_t tokens) {
  const int lfd = bench::loopback_listener();
  ready(bench::port_of(lfd));
  const int ep = ::epoll_create1(0);
  bench::epoll_add(ep, lfd);
  bench::epoll_add(ep, stop_fd);
  struct Conn {
    std::string in;
    int64_t left = 0;  // events still to send on the current stream
  };
  std::map<int, Conn> conns;
  const std::string head =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
      "transfer-encoding: chunked\r\n\r\n";
  auto chunk = [](const std::string& d) { return fmt::format("{:x}\r\n{}\r\n", d.size(), d); };
  auto event = [](bool last) {
    return fmt::format(
        "data: {{\"id\":\"cmpl-000000000000002a00000000000004d2\",\"object\":\"text_completion\","
        "\"created\":1764720000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"text\":\" token\","
        "\"logprobs\":null,\"finish_reason\":{},\"stop_reason\":null}}]}}\n\n",
        last ? "\"length\"" : "null");
  };
  const std::string mid = chunk(event(false));
  const std::string end = chunk(event(true) + "data: [DONE]\n\n") + "0\r\n\r\n";
  epoll_event evs[256];
  for (;;) {
    bool streaming = false;
    for (auto& [fd, c] : conns) streaming |= c.left > 0;
    const int n = ::epoll_wait(ep, evs, 256, streaming ? 0 : -1);
    for (int i = 0; i < n; ++i) {
      const int fd = evs[i].data.fd;
      if (fd == stop_fd) return;
      if (fd == lfd) {
        bench::accept_all(lfd, ep, [&](int c) { conns[c]; });
        continue;
      }
      auto& c = conns[fd];
      if (!bench::read_into(fd, c.in)) {
        ::close(fd);
        conns.erase(fd);
        continue;
      }
      if (c.left > 0 || !bench::take_request(c.in)) continue;
      if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) < 0) continue;
      c.left = tokens;
    }
    for (auto& [fd, c] : conns) {
      if (c.left <= 0) continue;
      const std::string& out = c.left == 1 ? end : mid;
      if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT) ==
          static_cast<ssize_t>(out.size()))
        --c.left;  // else: the socket is full; try again next round
    }
  }
}

SimChild spawn_raw_server(int64_t tokens) {
  return fork_server([tokens](int stop_fd, auto ready) { serve_raw(stop_fd, ready, tokens); });
}

sim::SimConfig fast_sim(double step_ms, int max_batch) {
  sim::SimConfig c = sim::preset_config("instant");
  c.cost.decode_step_ms = step_ms;
  c.sched.max_batch_size = max_batch;
  c.server.trace_in_memory = false;
  return c;
}

engine::EngineConfig client_config(uint16_t port, int64_t concurrency, int64_t requests,
                                   int64_t tokens) {
  engine::EngineConfig c;
  c.client.url = net::parse_url(fmt::format("http://127.0.0.1:{}", port));
  c.adapter.api = protocol::Api::openai;
  c.adapter.model = "m";
  c.workers = 1;
  c.load.concurrency = concurrency;
  c.load.num_requests = requests;
  c.workload.input_tokens = 16;
  c.workload.output_tokens = tokens;
  c.timeouts.first_token = std::chrono::seconds(120);
  c.timeouts.total = std::chrono::seconds(300);
  return c;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

struct Cost {
  double cpu_s = 0, wall_s = 0;
  uint64_t requests = 0, events = 0, ok = 0;
};

Cost measure(uint16_t port, int64_t concurrency, int64_t requests, int64_t tokens) {
  const auto cfg = client_config(port, concurrency, requests, tokens);
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  const auto result = engine::run_benchmark(cfg, {});
  Cost c;
  c.wall_s = to_s(Clock::now() - t0);
  c.cpu_s = cpu_seconds() - cpu0;
  for (const auto& r : result.records) {
    c.requests++;
    c.events += r.events;
    c.ok += r.ok();
  }
  return c;
}

void overhead() {
  fmt::print("== client overhead (1 worker thread, closed loop 256, loopback) ==\n");
  auto sim = spawn_sim(fast_sim(0.5, 4096));
  measure(sim.port, 64, 256, 8);  // warm the server and the allocator
  const Cost one = measure(sim.port, 256, 20000, 1);
  stop_sim(sim);
  auto sim2 = spawn_sim(fast_sim(0.5, 4096));  // a simulator of its own: its CPU is the streams'
  const Cost many = measure(sim2.port, 256, 2000, 400);
  const double sim_cpu_s = stop_sim(sim2);
  const double us_per_request = one.cpu_s / static_cast<double>(one.requests) * 1e6;
  const double event_cpu = many.cpu_s - us_per_request * 1e-6 * static_cast<double>(many.requests);
  const double us_per_event = event_cpu / static_cast<double>(many.events) * 1e6;
  fmt::print(
      "  1-token requests : {} ok of {}, {:.2f} s wall, {:.3f} s client CPU -> {:.1f} us "
      "CPU/request\n",
      one.ok, one.requests, one.wall_s, one.cpu_s, us_per_request);
  fmt::print("  400-token streams: {} ok, {} events, {:.2f} s wall, {:.3f} s client CPU\n", many.ok,
             many.events, many.wall_s, many.cpu_s);
  fmt::print(
      "  CPU per token event: {:.2f} us  ->  {:.0f} k streamed events/s per client core "
      "(all costs included: {:.0f} k events per CPU-second)\n",
      us_per_event, 1e3 / us_per_event, static_cast<double>(many.events) / many.cpu_s / 1e3);
  fmt::print(
      "  wall-clock event rate (bounded by the simulator sharing the cores): {:.0f} k events/s\n",
      static_cast<double>(many.events) / many.wall_s / 1e3);
  fmt::print(
      "  simulator: {:.3f} s CPU for the 400-token streams -> {:.2f} us per token event "
      "(its requests included)\n",
      sim_cpu_s, sim_cpu_s / static_cast<double>(many.events) * 1e6);
}

void saturate() {
  fmt::print("== client capacity: 1 worker thread saturated by a raw streaming server ==\n");
  auto srv = spawn_raw_server(400);
  measure(srv.port, 64, 256, 400);  // warm up
  const Cost c = measure(srv.port, 256, 2000, 400);
  stop_sim(srv);
  fmt::print("  {} ok of {}, {} events in {:.2f} s wall, {:.3f} s client CPU ({:.0f}% of a core)\n",
             c.ok, c.requests, c.events, c.wall_s, c.cpu_s, 100 * c.cpu_s / c.wall_s);
  fmt::print(
      "  -> {:.0f} k events/s per client CPU-second, {:.0f} k events/s wall "
      "(requests included; reads may carry several events at saturation)\n",
      static_cast<double>(c.events) / c.cpu_s / 1e3,
      static_cast<double>(c.events) / c.wall_s / 1e3);
}

void memory(int64_t streams) {
  // Slow streams (100 tokens at 100 ms) so that all are open at once.
  auto sim = spawn_sim(fast_sim(100.0, 100000));
  auto cfg = client_config(sim.port, streams, streams, 100);
  const double base = rss_bytes();
  double peak_all_open = 0;
  engine::RunHooks hooks;
  hooks.on_progress = [&](const engine::LiveTotals& t) {
    if (t.in_flight == streams) peak_all_open = std::max(peak_all_open, rss_bytes());
  };
  const auto t0 = Clock::now();
  const auto result = engine::run_benchmark(cfg, hooks);
  stop_sim(sim);
  uint64_t ok = 0;
  for (const auto& r : result.records) ok += r.ok();
  fmt::print(
      "  {:5} streams: {} ok in {:.1f} s; RSS {:.1f} MiB before, {:.1f} MiB with all open "
      "-> {:.1f} KiB per open stream\n",
      streams, ok, to_s(Clock::now() - t0), base / 1048576, peak_all_open / 1048576,
      (peak_all_open - base) / static_cast<double>(streams) / 1024);
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p / 100 * static_cast<double>(v.size() - 1))];
}

void accuracy() {
  fmt::print(
      "== accuracy: 1,000 streams x 50 tokens/s (20 ms steps), client vs server timeline ==\n");
  const std::string trace = fmt::format("/tmp/servebench-accuracy-{}.jsonl", getpid());
  auto sc = fast_sim(20.0, 100000);
  sc.server.trace_path = trace;
  auto sim = spawn_sim(sc);
  auto cfg = client_config(sim.port, 1000, 2000, 50);
  const auto result = engine::run_benchmark(cfg, {});
  stop_sim(sim);
  std::map<std::string, nlohmann::json> by_id;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (!j["request_id"].is_string()) continue;
    const std::string id = j["request_id"].get<std::string>();
    by_id[id] = std::move(j);
  }
  std::remove(trace.c_str());
  const int64_t origin = result.run_start.time_since_epoch().count();
  std::vector<double> first_ms, itl_err_ms, lateness_ms;
  uint64_t ok = 0;
  for (const auto& r : result.records) {
    if (!r.ok()) continue;
    ++ok;
    const auto it = by_id.find(fmt::format("servebench-{}", r.id));
    if (it == by_id.end()) continue;
    const auto tok = it->second["token_ns"].get<std::vector<int64_t>>();
    const auto due = it->second["token_due_ns"].get<std::vector<int64_t>>();
    if (tok.size() != r.itl_ms.size() + 1) continue;
    first_ms.push_back(static_cast<double>(origin + r.t_first_ns - tok[0]) / 1e6);
    for (size_t i = 0; i < r.itl_ms.size(); ++i)
      itl_err_ms.push_back(std::abs(r.itl_ms[i] - static_cast<double>(tok[i + 1] - tok[i]) / 1e6));
    for (size_t i = 0; i < std::min(tok.size(), due.size()); ++i)
      lateness_ms.push_back(static_cast<double>(tok[i] - due[i]) / 1e6);
  }
  fmt::print("  {} ok of {} requests, {} matched with the server trace\n", ok,
             result.records.size(), first_ms.size());
  auto row = [](const char* name, const std::vector<double>& v) {
    fmt::print("  {:42} p50 {:7.3f}  p99 {:7.3f}  p99.9 {:7.3f}  max {:7.3f} ms  (n={})\n", name,
               pct(v, 50), pct(v, 99), pct(v, 99.9), pct(v, 100), v.size());
  };
  row("first token: client arrival - server write", first_ms);
  row("ITL |client gap - server gap|", itl_err_ms);
  row("server emission lateness (write - due)", lateness_ms);
}

void fdlimit() {
  fmt::print("== 10,000 concurrent streams ==\n");
  memory(10000);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  try {
    if (what == "overhead" || what == "all") overhead();
    if (what == "saturate" || what == "all") saturate();
    if (what == "memory" || what == "all") {
      fmt::print("== resident memory per open stream (client process only) ==\n");
      memory(1000);
      memory(5000);
    }
    if (what == "accuracy" || what == "all") accuracy();
    if (what == "fdlimit" || what == "all") fdlimit();
  } catch (const std::exception& e) {
    fmt::print(stderr, "client_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
