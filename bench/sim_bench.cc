// Simulator capacity and emission accuracy (issue 3, "Benchmarks printing figures"):
// N concurrent streaming connections over loopback, each receiving T tokens at R
// tokens/s; prints how many streams completed and the lateness of every token write
// against the model's schedule (trace token_ns - token_due_ns), p50/p99/p99.9/max.
//
//   sim_bench [streams=1000] [tokens_per_s=50] [tokens=100] [server_threads=1]
// e.g. sim_bench 5000 50 100 1   (5,000 streams on one server thread)
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "../tests/sim/http_client.h"
#include "sim/server.h"

using namespace sb::sim;

int main(int argc, char** argv) {
  int streams = argc > 1 ? std::atoi(argv[1]) : 1000;
  double rate = argc > 2 ? std::atof(argv[2]) : 50;
  int tokens = argc > 3 ? std::atoi(argv[3]) : 100;
  int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  SimConfig c = preset_config("instant");
  c.cost.decode_step_ms = 1000.0 / rate;
  c.sched.max_batch_size = streams + 1;
  c.server.threads = threads;
  Server server(c);
  uint16_t port = server.start();

  std::string body =
      fmt::format(R"({{"inputs":"abcd","parameters":{{"max_new_tokens":{}}}}})", tokens);
  std::string req = fmt::format(
      "POST /generate_stream HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
      "content-length: {}\r\n\r\n{}",
      body.size(), body);
  std::vector<std::unique_ptr<sb::sim::testing::Conn>> conns;
  std::vector<int> fds;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < streams; ++i) {
    conns.push_back(std::make_unique<sb::sim::testing::Conn>(port));
    conns.back()->send_raw(req);
  }
  // Drain every stream to its end; the server-side trace gives the lateness, so the
  // order in which the client reads does not matter (the kernel buffers the rest).
  int done = 0;
  std::vector<std::thread> readers;
  int nreaders = 2;
  std::atomic<int> completed{0};
  for (int r = 0; r < nreaders; ++r)
    readers.emplace_back([&, r] {
      for (size_t i = static_cast<size_t>(r); i < conns.size();
           i += static_cast<size_t>(nreaders)) {
        auto resp = conns[i]->read();
        if (resp.complete) ++completed;
      }
    });
  for (auto& t : readers) t.join();
  done = completed.load();
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // A request's record lands just after its last bytes: give the server a moment.
  for (int i = 0; i < 200 && server.trace().size() < static_cast<size_t>(streams); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto tr = server.trace();
  server.stop();
  std::vector<double> late_ms;
  for (const auto& rec : tr)
    for (size_t i = 0; i < rec.token_ns.size() && i < rec.token_due_ns.size(); ++i)
      late_ms.push_back((rec.token_ns[i] - rec.token_due_ns[i]) / 1e6);
  std::sort(late_ms.begin(), late_ms.end());
  auto pct = [&](double p) {
    if (late_ms.empty()) return 0.0;
    return late_ms[std::min(late_ms.size() - 1, static_cast<size_t>(p / 100 * late_ms.size()))];
  };
  fmt::print(
      "sim_bench: {} streams x {} tokens at {} tok/s, {} server thread(s): {} completed in {:.2f} "
      "s\n"
      "token write lateness vs model schedule (ms): p50 {:.3f}  p90 {:.3f}  p99 {:.3f}  p99.9 "
      "{:.3f}  "
      "max {:.3f}  ({} tokens)\n",
      streams, tokens, rate, threads, done, wall_s, pct(50), pct(90), pct(99), pct(99.9),
      late_ms.empty() ? 0.0 : late_ms.back(), late_ms.size());
  return done == streams ? 0 : 1;
}
