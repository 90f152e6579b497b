#include "mpi/distributed_prof.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/prof_command.h"
#include "cli/prof_options.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "common/error.h"
#include "engine/config_json.h"
#include "engine/engine.h"
#include "mpi/clock_sync.h"
#include "mpi/comm.h"
#include "mpi/rank_merge.h"
#include "mpi/record_codec.h"
#include "report/request_log.h"
#include "report/run_outputs.h"
#include "report/terminal_summary.h"
#include "sim/server.h"
#include "workload/prompt_source.h"

namespace sb::mpi {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr int kTagHeartbeat = 201;
constexpr int kTagResult = 210;  // and 211 for its chunks (send_bytes)

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

std::string iso_utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

int64_t share(int64_t total, int parts, int i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

// What must be identical on every rank for the run to be one benchmark.
uint64_t config_hash(const cli::ProfConfig& pc) {
  json j = engine::config_to_json(pc.engine);
  j["slo"] = {pc.slo.ttft_ms.value_or(-1), pc.slo.tpot_ms.value_or(-1), pc.slo.e2e_ms.value_or(-1)};
  j["output_dir"] = pc.output_dir;
  j["sim"] = pc.sim_preset;
  j["max_error_rate"] = pc.max_error_rate;
  j["api_key_set"] = !pc.engine.api_key.empty();
  uint64_t h = fnv1a(j.dump());
  // The prompts themselves (a --prompt-file or dataset that differs between hosts).
  const workload::PromptSource prompts(pc.engine.workload);
  for (uint64_t i = 0; i < 16; ++i) {
    const auto item = prompts.item(i);
    h = fnv1a(item.prompt, h);
    h = fnv1a(item.messages_json, h);
    h = fnv1a(std::to_string(item.max_tokens), h);
  }
  return h;
}

struct Fault {
  std::string kind;  // "", "unreachable", "kill"
  int rank = -1;
  int64_t after = 0;
};

Fault fault_from_env() {
  Fault f;
  const char* v = std::getenv("SERVEBENCH_MPI_FAULT");
  if (!v) return f;
  const std::string s = v;
  const auto a = s.find(':');
  if (a == std::string::npos) return f;
  f.kind = s.substr(0, a);
  const auto b = s.find(':', a + 1);
  f.rank =
      std::atoi(s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1).c_str());
  if (b != std::string::npos) f.after = std::atoll(s.c_str() + b + 1);
  return f;
}

double silence_limit_s() {
  const char* v = std::getenv("SERVEBENCH_MPI_SILENCE_S");
  const double s = v ? std::atof(v) : 0;
  return s > 0 ? s : 30.0;
}

// Every rank reports (code, message); rank 0 prints the failures and all ranks learn the
// outcome: 0 to go on, else the exit code. `quiet_rank0` when rank 0 already printed its own.
int agree(int code, const std::string& message, const std::string& name, int rank,
          bool quiet_rank0 = false) {
  const json mine = {{"code", code}, {"message", message}, {"name", name}};
  const auto all = gather_strings(mine.dump(), 0, MPI_COMM_WORLD);
  int outcome = 0;
  if (rank == 0) {
    for (size_t r = 0; r < all.size(); ++r) {
      const json j = json::parse(all[r]);
      const int c = j["code"].get<int>();
      if (c == 0) continue;
      if (outcome == 0) outcome = c;
      if (r == 0 && quiet_rank0) continue;
      const std::string msg = j["message"].get<std::string>();
      if (msg.empty()) continue;
      if (r == 0)
        fmt::print(stderr, "servebench: {}\n", msg);
      else
        fmt::print(stderr, "servebench: rank {}: {}\n", j["name"].get<std::string>(), msg);
    }
  }
  MPI_Bcast(&outcome, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return outcome;
}

void write_rank_state(const std::string& dir, const json& state) {
  report::write_file_atomically(dir + "/rank.json", state.dump(2) + "\n");
}

// Rank 0's side of the end of the run: every other rank's result, or its silence.
struct Collected {
  json header;
  std::vector<metrics::RequestRecord> records;
  bool received = false;
};

class Coordinator {
 public:
  explicit Coordinator(int size) : last_seen_(size, Clock::now()), results_(size) {}

  // Drains heartbeats (called ~every 250 ms by rank 0 during its own run).
  void drain_heartbeats() {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      last_seen_[st.MPI_SOURCE] = Clock::now();
    }
  }

  // Receives every rank's result; a rank silent for `silence` is given up. Returns the
  // ranks given up.
  std::vector<int> collect(Nanos silence) {
    const int size = static_cast<int>(results_.size());
    results_[0].received = true;
    const TimePoint waiting_since = Clock::now();
    for (auto& t : last_seen_) t = std::max(t, waiting_since);
    std::vector<int> dead;
    for (;;) {
      drain_heartbeats();
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        const int src = st.MPI_SOURCE;
        const std::string header = recv_bytes(src, kTagResult, MPI_COMM_WORLD);
        const std::string records = recv_bytes(src, kTagResult, MPI_COMM_WORLD);
        results_[src].header = json::parse(header);
        results_[src].records = decode_records(records);
        results_[src].received = true;
        continue;
      }
      bool waiting = false;
      const TimePoint now = Clock::now();
      for (int r = 1; r < size; ++r) {
        if (results_[r].received || std::find(dead.begin(), dead.end(), r) != dead.end()) continue;
        if (now - last_seen_[r] > silence)
          dead.push_back(r);
        else
          waiting = true;
      }
      if (!waiting) return dead;
      std::this_thread::sleep_for(5ms);
    }
  }

  Collected& result(int r) { return results_[r]; }

 private:
  std::vector<TimePoint> last_seen_;
  std::vector<Collected> results_;
};

int run(Session& mpi, int argc, char** argv) {
  const int rank = mpi.rank(), size = mpi.size();
  const std::string host = hostname();
  const std::string name = fmt::format("{}:{}", host, rank);
  const Fault fault = fault_from_env();

  // 1. Rank 0's argv, parsed on every rank.
  std::string packed;
  if (rank == 0)
    for (int i = 1; i < argc; ++i) packed.append(argv[i]).push_back('\0');
  packed = bcast_string(packed, 0, MPI_COMM_WORLD);
  std::vector<std::string> args{"servebench"};
  for (size_t p = 0; p < packed.size();) {
    const size_t e = packed.find('\0', p);
    args.push_back(packed.substr(p, e - p));
    p = e + 1;
  }
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());

  CLI::App app{"servebench (distributed)"};
  app.require_subcommand(1);
  auto* sub = app.add_subcommand("prof", "Benchmark one inference endpoint");
  cli::ProfFlags flags;
  cli::add_prof_flags(*sub, flags);
  cli::ProfConfig pc;
  int code = 0;
  std::string message;
  try {
    app.parse(static_cast<int>(av.size()), av.data());
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same argv, so every rank lands here: rank 0 prints.
    const int rc = rank == 0 ? app.exit(e) : e.get_exit_code();
    return rc == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  try {
    pc = cli::to_prof_config(flags);
    const auto& l = pc.engine.load;
    if (l.mode == engine::LoadMode::closed && l.concurrency < size)
      throw usage_error(fmt::format(
          "--concurrency {} is below the number of ranks ({}): every rank needs at least one "
          "slot; raise the concurrency or start fewer ranks",
          l.concurrency, size));
    if (l.mode == engine::LoadMode::open && l.max_concurrency > 0 && l.max_concurrency < size)
      throw usage_error(fmt::format(
          "--max-concurrency {} is below the number of ranks ({}); raise it or start fewer ranks",
          l.max_concurrency, size));
  } catch (const Error& e) {
    code = static_cast<int>(e.code());
    message = e.what();
  }
  if (int rc = agree(code, message, name, rank)) return rc;

  // 2. --sim: rank 0 hosts the simulator (single-host runs); everyone targets it.
  std::unique_ptr<sim::Server> simulator;
  std::string sim_url;
  if (rank == 0 && !pc.sim_preset.empty()) {
    sim::SimConfig sc = sim::preset_config(pc.sim_preset);
    sc.host = "127.0.0.1";
    sc.port = 0;
    sc.time_scale = pc.sim_time_scale;
    simulator = std::make_unique<sim::Server>(sc);
    simulator->start();
    sim_url = simulator->url();
  }
  sim_url = bcast_string(sim_url, 0, MPI_COMM_WORLD);
  if (!sim_url.empty()) pc.engine.client.url = net::parse_url(sim_url);

  // 3. Every rank's configuration must be rank 0's.
  try {
    uint64_t h = config_hash(pc);
    uint64_t h0 = h;
    MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (h != h0)
      throw usage_error(
          "its configuration differs from rank 0's (different --prompt-file/dataset contents, "
          "environment or servebench version on that host?); no request was sent");
  } catch (const Error& e) {
    code = static_cast<int>(e.code());
    message = e.what();
  }
  if (int rc = agree(code, message, name, rank)) return rc;

  // 4. Clocks, then the output folder and the run's manifest.
  const ClockOffset clock = estimate_clock_offset(MPI_COMM_WORLD);
  std::string dir =
      rank == 0 ? (pc.output_dir.empty() ? cli::default_output_dir(pc.engine) : pc.output_dir)
                : std::string();
  dir = bcast_string(dir, 0, MPI_COMM_WORLD);
  const std::string my_dir = rank_dir(dir, rank);
  {
    std::error_code ec;
    std::filesystem::create_directories(my_dir, ec);
    code = ec ? static_cast<int>(ExitCode::usage) : 0;
    message =
        ec ? fmt::format("--output-dir '{}': cannot create {} ({})", dir, my_dir, ec.message())
           : "";
  }
  if (int rc = agree(code, message, name, rank)) return rc;

  // 5. Can this rank reach the target?
  std::string unreachable;
  {
    net::ClientContext client(pc.engine.client);
    const auto probe = net::probe_connect(client, pc.engine.timeouts.connect);
    if (!probe.ok())
      unreachable =
          fmt::format("cannot reach {}: {}", pc.engine.client.url.to_string(), probe.message);
    for (const net::Url& url : pc.engine.extra_endpoints) {
      if (!unreachable.empty()) break;
      net::ClientOptions o = pc.engine.client;
      o.url = url;
      net::ClientContext c(o);
      const auto p = net::probe_connect(c, pc.engine.timeouts.connect);
      if (!p.ok()) unreachable = fmt::format("cannot reach {}: {}", url.to_string(), p.message);
    }
    if (fault.kind == "unreachable" && fault.rank == rank)
      unreachable = fmt::format("cannot reach {}: injected by SERVEBENCH_MPI_FAULT",
                                pc.engine.client.url.to_string());
  }
  const json me = {{"rank", rank},
                   {"host", host},
                   {"clock_offset_ns", clock.offset_ns},
                   {"clock_uncertainty_ns", clock.uncertainty_ns},
                   {"reachable", unreachable.empty()},
                   {"error", unreachable}};
  const auto everyone = gather_strings(me.dump(), 0, MPI_COMM_WORLD);
  int rank0_reachable = unreachable.empty() ? 1 : 0;
  MPI_Bcast(&rank0_reachable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!rank0_reachable) {
    if (rank == 0)
      fmt::print(stderr, "servebench: rank {} (the coordinator): {}\n", name, unreachable);
    return static_cast<int>(ExitCode::unreachable);
  }
  json manifest;
  if (rank == 0) {
    engine::RunResult planned;
    planned.started_at = iso_utc_now();
    metrics::RunInfo info = cli::run_info(pc, planned);
    info.config["mpi_ranks"] = size;
    manifest = {{"schema", "servebench.mpi/1"},
                {"world_size", size},
                {"ranks", json::array()},
                {"run_info", run_info_to_json(info)}};
    for (const auto& s : everyone) manifest["ranks"].push_back(json::parse(s));
    report::write_file_atomically(dir + "/mpi.json", manifest.dump(2) + "\n");
    for (const auto& r : manifest["ranks"])
      if (!r["reachable"].get<bool>())
        fmt::print(stderr, "servebench: rank {}:{} takes no part: {}\n",
                   r["host"].get<std::string>(), r["rank"].get<int>(),
                   r["error"].get<std::string>());
  }
  MPI_Comm active = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, unreachable.empty() ? 0 : MPI_UNDEFINED, rank, &active);

  // 6. The load: this rank's share, started at the agreed instants.
  json state = {{"rank", rank}, {"host", host}, {"state", "running"}};
  write_rank_state(my_dir, state);
  std::optional<Coordinator> coordinator;
  if (rank == 0) coordinator.emplace(size);
  engine::RunResult result;
  if (!unreachable.empty()) {
    state["state"] = "failed";
    state["error"] = unreachable;
  } else {
    engine::EngineConfig ec = pc.engine;
    ec.load.shard_index = rank;
    ec.load.shard_count = size;
    if (ec.load.mode == engine::LoadMode::closed)
      ec.load.concurrency = share(ec.load.concurrency, size, rank);
    if (ec.load.max_concurrency > 0)
      ec.load.max_concurrency = share(ec.load.max_concurrency, size, rank);

    report::RequestLog log(my_dir);
    int64_t appended = 0;
    const bool kill_me = fault.kind == "kill" && fault.rank == rank;
    cli::ProgressPrinter progress(stderr);
    const bool show_progress = rank == 0 && !pc.no_progress;
    int aligned = 0;
    engine::RunHooks hooks;
    hooks.on_record = [&](const metrics::RequestRecord& r) {
      log.append(r);
      if (kill_me && ++appended == fault.after) {
        // Flushes what the RequestLog holds so far, as its 1 s flusher would have by then.
        std::this_thread::sleep_for(1200ms);
        std::raise(SIGKILL);
      }
    };
    hooks.stop = &cli::install_stop_handlers();
    hooks.on_progress = [&](const engine::LiveTotals& t) {
      if (rank == 0) {
        coordinator->drain_heartbeats();
        if (show_progress) progress.update(t);
      } else {
        const int beat = 1;
        MPI_Send(&beat, 1, MPI_INT, 0, kTagHeartbeat, MPI_COMM_WORLD);
      }
    };
    hooks.align_start = [&](TimePoint proposed) {
      ++aligned;
      // 20 ms covers the reduction's own latency, so no rank is late for the instant.
      int64_t mine = to_reference_ns(proposed, clock) + 20'000'000;
      int64_t agreed = 0;
      MPI_Allreduce(&mine, &agreed, 1, MPI_INT64_T, MPI_MAX, active);
      return from_reference_ns(agreed, clock);
    };
    try {
      result = engine::run_benchmark(ec, hooks);
      state["state"] = "done";
      state["interrupted"] = result.interrupted;
    } catch (const Error& e) {
      state["state"] = "failed";
      state["error"] = e.what();
      result.records.clear();
    }
    // Every active rank takes part in both start agreements, whatever happened to it.
    while (aligned < 2) hooks.align_start(Clock::now());
    if (show_progress) progress.finish();
    log.close();
    state["records"] = result.records.size();
    state["workers"] = result.workers;
    state["started_at"] = result.started_at;
  }
  write_rank_state(my_dir, state);
  if (active != MPI_COMM_NULL) MPI_Comm_free(&active);

  // 7. Results to rank 0.
  if (rank != 0) {
    send_bytes(state.dump(), 0, kTagResult, MPI_COMM_WORLD);
    send_bytes(encode_records(result.records), 0, kTagResult, MPI_COMM_WORLD);
    return 0;
  }
  const std::vector<int> dead = coordinator->collect(from_s(silence_limit_s()));
  if (simulator) simulator->stop();  // only now: the other ranks' loads used it until here
  std::vector<RankResult> ranks(size);
  for (int r = 0; r < size; ++r) {
    RankResult& rr = ranks[r];
    const json& m = manifest["ranks"][r];
    rr.rank = r;
    rr.host = m["host"].get<std::string>();
    rr.clock_offset_ns = m["clock_offset_ns"].get<int64_t>();
    rr.clock_uncertainty_ns = m["clock_uncertainty_ns"].get<int64_t>();
    if (std::find(dead.begin(), dead.end(), r) != dead.end()) {
      rr.state = "died";
      rr.error = fmt::format("no result and no heartbeat for {:.0f} s", silence_limit_s());
      int64_t skipped = 0;  // what its rank folder holds, when this host can see it
      rr.records = read_rank_records(rank_dir(dir, r) + "/requests.jsonl", &skipped);
      continue;
    }
    const json& h = r == 0 ? state : coordinator->result(r).header;
    rr.state = h.value("state", std::string("missing"));
    rr.error = h.value("error", std::string());
    rr.interrupted = h.value("interrupted", false);
    rr.records = r == 0 ? std::move(result.records) : std::move(coordinator->result(r).records);
  }
  engine::RunResult merged_run;
  merged_run.started_at = state.value("started_at", std::string());
  merged_run.workers = state.value("workers", 0);
  metrics::RunInfo info = cli::run_info(pc, merged_run);
  info.config["mpi_ranks"] = size;
  const metrics::RunSummary summary = write_merged_run(dir, ranks, info);
  if (!pc.quiet) fmt::print("{}\n", report::format_terminal_summary(summary));
  fmt::print(stderr,
             "servebench: {} ranks; results in {}/ (summary.json, summary.csv, requests.jsonl, "
             "rank-*/)\n",
             size, dir);

  bool any_unreachable = false;
  for (const auto& r : ranks)
    if (r.state != "done") {
      any_unreachable = any_unreachable || r.state == "failed";
      fmt::print(stderr, "servebench: rank {} {}: {} (run marked incomplete)\n", r.name(), r.state,
                 r.error);
    }
  if (!dead.empty()) {
    std::fflush(stdout);
    std::fflush(stderr);
    mpi.abort(static_cast<int>(ExitCode::failure));  // MPI cannot finalize with a dead peer
  }
  if (any_unreachable) return static_cast<int>(ExitCode::unreachable);
  const auto& req = summary.requests;
  const int64_t connect_errors =
      summary.errors.count("connect_error") ? summary.errors.at("connect_error") : 0;
  if (req.ok == 0 && connect_errors > 0) return static_cast<int>(ExitCode::unreachable);
  if (pc.max_error_rate >= 0 && req.total > 0 &&
      static_cast<double>(req.failed) / static_cast<double>(req.total) > pc.max_error_rate) {
    fmt::print(stderr, "servebench: error rate above --max-error-rate\n");
    return static_cast<int>(ExitCode::error_rate);
  }
  bool interrupted = false;
  for (const auto& r : ranks) interrupted = interrupted || r.interrupted;
  return interrupted ? static_cast<int>(ExitCode::interrupted) : 0;
}

}  // namespace

int run_distributed_prof(int argc, char** argv) {
  Session mpi(&argc, &argv);
  try {
    return run(mpi, argc, argv);
  } catch (const Error& e) {
    fmt::print(stderr, "servebench: rank {}: {}\n", mpi.rank(), e.what());
    std::fflush(stderr);
    mpi.abort(static_cast<int>(e.code()));
  } catch (const std::exception& e) {
    fmt::print(stderr, "servebench: rank {}: internal error: {}\n", mpi.rank(), e.what());
    std::fflush(stderr);
    mpi.abort(static_cast<int>(ExitCode::failure));
  }
}

}  // namespace sb::mpi
