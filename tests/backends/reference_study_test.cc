// A minimal examples/reference-study-real.yaml, run as users run it (`servebench run PLAN`, the
// providers launched by the plan), whose results must show the study's expected shape:
//
//  1. Batching raises peak throughput: fastapi_server.py with dynamic batching reaches a clearly
//     higher peak output tokens/s than pytorch_native.py, which generates one request at a time;
//     the simulator's TGI preset (continuous batching) multiplies its own throughput with load.
//  2. The one-at-a-time server's latency grows linearly with concurrency.
//
// Expected latency of a one-at-a-time server under a closed loop. c clients, zero think time,
// service time S per request (all requests have the same lengths here). The measured phase
// starts with the server idle and all c requests sent at once: they finish at S, 2S, ..., cS
// (sum c(c+1)/2 x S). From then on each client re-sends the moment its request ends, when c-1
// others are in the system, so every later request takes c x S (the steady state: e2e = c x S).
// Over a window of N requests the mean e2e is therefore
//
//     E(c) x S,   E(c) = c x (N - (c-1)/2) / N        (E(1) = 1; N = 4c: E(c) = (7c+1)/8)
//
// whatever order the server picks waiting requests in (the sum of the e2e times is the sum of
// completion times minus the sum of send times, and both are fixed by S).
//
// Which S. The simple form is S = mean e2e at c = 1, i.e. e2e(c) ~ E(c) x e2e(1). On a steady
// machine the ratio e2e(c) / (E(c) x e2e(1)) is about 1.0-1.1 (e2e(1) is within a millisecond
// of the server's own service time; at c >= 2 the service time grows a little, as the waiting
// handler threads take the GIL now and then). On a loaded machine it is not reliable: the
// server's speed follows the other processes' load from second to second, and the kernel's
// scheduler favours the server at c = 1 (it sleeps between requests) over c >= 2 (it never
// sleeps), so the service time has been seen to triple from one level to the next on this 2-core
// machine with other tests running. Hence two checks:
//  - always: S(c) from the server's own timing log at the same level (the mean time a measured
//    request held the lock); e2e(c) / (E(c) x S(c)) in [0.8, 1.3] for c = 2, 4, 8 (1 up to the
//    client-side overhead, a few ms; measured 0.95-1.03 under heavy load), and the latency in
//    service times, e2e(c) / S(c), linear in c (R^2 >= 0.98; E(c) is exactly linear). This is
//    the queueing itself, each request waiting for the c-1 ahead of it; a server that batches
//    fails it (its requests do not wait for each other: the batched server's ratio at c = 8,
//    measured the same way, is about 0.15, and must stay below 0.5);
//  - when the machine was steady during the run (the native server's S(c) within 25% across
//    the levels): the simple form, e2e(c) / (E(c) x e2e(1)) in [0.6, 1.35] (about S(c) / S(1),
//    which steadiness keeps within 1/1.25..1.25), and the raw mean e2e linear in c
//    (R^2 >= 0.95). Otherwise the test says so on stdout and relies on the first check.
#include <sys/socket.h>

#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>

#include "backend_harness.h"

namespace {

using namespace sb::testing;

// A port free now on 127.0.0.1 (the kernel's pick; the plan launches the servers on fixed
// ports, as the study does).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

std::string launched_provider(const std::string& id, const std::string& script, int port,
                              const std::string& extra, const fs::path& timing_log) {
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  std::ostringstream y;
  y << "  - id: " << id << "\n"
    << "    base_url: " << url << "\n"
    << "    api: tgi\n"
    << "    launch:\n"
    << "      command: exec " << kPython << " '" << SERVEBENCH_SOURCE_DIR << "/examples/backends/"
    << script << "' --port " << port << " --threads 1 --timing-log '" << timing_log.string()
    << "'" << extra << "\n"
    << "      ready_url: " << url << "/health\n"
    << "      ready_timeout: 2m\n"
    << "      stop_grace: 10s\n";
  return y.str();
}

struct Level {
  double tokens_per_s = 0;  // output tokens/s over the measured window (the index's figure)
  double mean_e2e_ms = 0;   // client side, over the measured requests
  int64_t n = 0;            // measured requests
  double service_ms = 0;    // server side: mean start -> done of the measured requests
};

// R^2 of the least-squares line through (x, y).
double r_squared(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return syy == 0 ? 1.0 : sxy * sxy / (sxx * syy);
}

constexpr int kWarmup = 1;            // per level, not measured
constexpr int kRequestsPerLevel = 4;  // measured requests = 4 x c
const std::vector<int> kLevels = {1, 2, 4, 8};

// Fills Level::service_ms from a server's timing log. Levels run one after another and each
// phase (warm-up, measured) ends before the next starts, so the log holds, per level in
// order, kWarmup warm-up lines then kRequestsPerLevel x c measured ones.
void add_service_times(const fs::path& timing_log, std::map<int, Level>& levels) {
  const std::vector<json> log = read_jsonl(timing_log);
  size_t at = 0;
  for (int c : kLevels) {
    at += kWarmup;
    const size_t n = static_cast<size_t>(kRequestsPerLevel * c);
    double sum = 0;
    for (size_t i = at; i < at + n && i < log.size(); ++i)
      sum += (log[i]["done_mono_s"].get<double>() - log[i]["start_mono_s"].get<double>()) * 1e3;
    levels[c].service_ms = sum / static_cast<double>(n);
    at += n;
  }
  ASSERT_EQ(log.size(), at) << timing_log << ": one line per request";
}

// The full plan that docs/backends.md documents stays valid (no server needed).
TEST(ReferenceStudy, TheFullPlanIsValid) {
  const CmdResult r = run_servebench("run " + std::string(SERVEBENCH_SOURCE_DIR) +
                                     "/examples/reference-study-real.yaml --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("4 providers, 3 scenarios, 2 stages"), std::string::npos) << r.out;
}

TEST(ReferenceStudy, BatchingRaisesPeakThroughputAndOneAtATimeLatencyGrowsLinearly) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("study");
  const int native_port = free_port(), batched_port = free_port();
  ASSERT_GT(native_port, 0);
  ASSERT_GT(batched_port, 0);
  ASSERT_NE(native_port, batched_port);

  // examples/reference-study-real.yaml cut down: the native server, FastAPI with batching and
  // the simulated TGI (20x faster than real time); fixed lengths (no scenario) so that every
  // request costs the same; levels 1-8 with 4 x c requests each.
  std::ostringstream plan;
  plan << "name: reference-study-mini\n"
       << "providers:\n"
       << launched_provider("pytorch-native", "pytorch_native.py", native_port, "",
                            dir / "native-timing.jsonl")
       << launched_provider("fastapi-batched", "fastapi_server.py", batched_port,
                            " --batch-size 8 --batch-wait-ms 10", dir / "batched-timing.jsonl")
       << "  - {id: tgi-sim, sim: tgi}\n"
       << "defaults:\n"
       << "  api: tgi\n"
       << "  input_length: 16\n"
       << "  output_length: 48\n"
       << "  warmup: " << kWarmup << "\n"
       << "  cooldown: 0s\n"
       << "  sim_time_scale: 0.05\n"
       << "stages:\n"
       << "  - {name: peak, kind: sweep, concurrency: [";
  for (size_t i = 0; i < kLevels.size(); ++i) plan << (i ? ", " : "") << kLevels[i];
  plan << "], requests_per_level: " << kRequestsPerLevel << "}\n";
  std::ofstream(dir / "plan.yaml") << plan.str();

  const fs::path out = dir / "out";
  const CmdResult r = run_servebench("run " + (dir / "plan.yaml").string() + " -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;

  std::ifstream in(out / "index.json");
  const json index = json::parse(in, nullptr, false);
  ASSERT_TRUE(index.is_object() && index.contains("runs")) << r.out;
  std::map<std::string, std::map<int, Level>> by;  // provider -> concurrency -> level
  for (const json& row : index["runs"]) {
    ASSERT_EQ(row["status"], "ok") << row.dump();
    std::ifstream sf(out / row["folder"].get<std::string>() / "summary.json");
    const json s = json::parse(sf, nullptr, false);
    ASSERT_TRUE(s.is_object()) << row["folder"];
    Level l;
    l.tokens_per_s = row["output_tokens_per_s"].get<double>();
    l.mean_e2e_ms = s["metrics"]["e2e_ms"]["mean"].get<double>();
    l.n = s["metrics"]["e2e_ms"]["count"].get<int64_t>();
    by[row["provider"].get<std::string>()][static_cast<int>(row["load_level"].get<double>())] = l;
  }
  for (const char* p : {"pytorch-native", "fastapi-batched", "tgi-sim"})
    for (int c : kLevels) {
      ASSERT_TRUE(by[p].count(c)) << p << " c=" << c << "\n" << r.out;
      ASSERT_EQ(by[p][c].n, kRequestsPerLevel * c) << p << " c=" << c;
    }
  add_service_times(dir / "native-timing.jsonl", by["pytorch-native"]);
  add_service_times(dir / "batched-timing.jsonl", by["fastapi-batched"]);
  if (HasFatalFailure()) return;

  auto peak = [&](const std::string& p) {
    double best = 0;
    for (const auto& [c, l] : by[p]) best = std::max(best, l.tokens_per_s);
    return best;
  };
  // E(c): the closed loop's mean e2e over the window, in service times (header comment).
  auto expected = [](int c, int64_t n) {
    return c * (static_cast<double>(n) - (c - 1) / 2.0) / static_cast<double>(n);
  };
  // e2e(c) / (E(c) x e2e(1)), the simple form, and e2e(c) / (E(c) x S(c)), S from the server.
  auto vs_e2e1 = [&](const std::string& p, int c) {
    const Level& l = by[p][c];
    return l.mean_e2e_ms / (by[p][1].mean_e2e_ms * expected(c, l.n));
  };
  auto vs_service = [&](const std::string& p, int c) {
    const Level& l = by[p][c];
    return l.service_ms > 0 ? l.mean_e2e_ms / (l.service_ms * expected(c, l.n)) : 0.0;
  };

  std::ostringstream table;
  table << std::fixed << std::setprecision(2)
        << "provider          c  out tok/s  mean e2e ms   E(c)  /E.e2e(1)  service ms  /E.S(c)\n";
  for (const auto& [p, lv] : by)
    for (const auto& [c, l] : lv)
      table << std::left << std::setw(16) << p << std::right << std::setw(3) << c << std::setw(11)
            << l.tokens_per_s << std::setw(13) << l.mean_e2e_ms << std::setw(7)
            << expected(c, l.n) << std::setw(11) << vs_e2e1(p, c) << std::setw(12)
            << l.service_ms << std::setw(9) << vs_service(p, c) << "\n";

  // 1. Peak output tokens/s. The native server is bound by one sequence per forward step; the
  // batched one runs up to 8 per step for little more than one step's cost (the 2.5 M-parameter
  // model's step is mostly Python and per-call overhead: tinygpt.py's generate() makes about 4x
  // the tokens per CPU second at batch 8). End to end the gain is about 3x on a quiet 2-core
  // machine (batched 1,900-2,400 against native 690-730 tokens/s): the per-token work of the
  // HTTP stream (an SSE event per token in Python) is not batched, and the client shares the
  // cores. Under heavy load the lowest seen was 1.7x. So 1.5x: a margin a loaded machine still
  // gives, far above the 1x of two one-at-a-time servers.
  const double native_peak = peak("pytorch-native"), batched_peak = peak("fastapi-batched");
  EXPECT_GT(batched_peak, 1.5 * native_peak) << table.str();
  // The simulated TGI batches continuously: at c = 8 it makes several times its c = 1
  // throughput (ideally 8x; 3x leaves room for timer slack on a loaded machine).
  EXPECT_GT(peak("tgi-sim"), 3.0 * by["tgi-sim"][1].tokens_per_s) << table.str();

  // 2. One at a time: mean e2e(c) = E(c) x S, linear in c (the header comment).
  std::vector<double> xs, ys, ys_in_s;
  double s_min = 1e300, s_max = 0;
  for (int c : kLevels) {
    const Level& l = by["pytorch-native"][c];
    xs.push_back(c);
    ys.push_back(l.mean_e2e_ms);
    ys_in_s.push_back(l.mean_e2e_ms / l.service_ms);
    s_min = std::min(s_min, l.service_ms);
    s_max = std::max(s_max, l.service_ms);
  }
  const bool steady = s_max <= 1.25 * s_min;
  const double r2 = r_squared(xs, ys), r2_in_s = r_squared(xs, ys_in_s);
  table << std::setprecision(4) << "pytorch-native, linear fit against concurrency: R^2 = "
        << r2_in_s << " (e2e / S(c)), " << r2 << " (mean e2e); S(c) from " << s_min << " to "
        << s_max << " ms: "
        << (steady ? "steady machine, simple-form checks on\n"
                   : "the machine's load varied, simple-form checks (e2e(1) as S) off\n");
  EXPECT_GE(r2_in_s, 0.98) << table.str();
  if (steady) {
    EXPECT_GE(r2, 0.95) << table.str();
  }
  for (int c : kLevels) {
    if (c == 1) continue;
    const double q = vs_service("pytorch-native", c), q1 = vs_e2e1("pytorch-native", c);
    EXPECT_GE(q, 0.8) << "c=" << c << "\n" << table.str();
    EXPECT_LE(q, 1.3) << "c=" << c << "\n" << table.str();
    if (!steady) continue;
    EXPECT_GE(q1, 0.6) << "c=" << c << "\n" << table.str();
    EXPECT_LE(q1, 1.35) << "c=" << c << "\n" << table.str();
  }
  // The same measure tells a batching server apart: its requests do not wait for each other.
  EXPECT_LT(vs_service("fastapi-batched", 8), 0.5) << table.str();
  std::cout << table.str();

  fs::remove_all(dir);
}

}  // namespace
