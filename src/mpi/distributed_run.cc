#include "mpi/distributed_run.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "common/redact.h"
#include "common/wall_clock.h"
#include "engine/config_json.h"
#include "mpi/clock_sync.h"
#include "mpi/record_codec.h"
#include "net/connection.h"
#include "plan/progress.h"
#include "results/request_log.h"
#include "results/run_outputs.h"
#include "workload/prompt_source.h"

namespace sb::mpi {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr int kTagHeartbeat = 201;
constexpr int kTagResult = 210;  // and 211 for its chunks (send_bytes)

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

double silence_limit_s() {
  const char* v = std::getenv("SERVEBENCH_MPI_SILENCE_S");
  const double s = v ? std::atof(v) : 0;
  return s > 0 ? s : 30.0;
}

void write_rank_state(const std::string& dir, const json& state) {
  results::write_file_atomically(dir + "/rank.json", state.dump(2) + "\n");
}

// Why this rank cannot take part: its connection probe to every endpoint ("" when it can).
std::string probe_target(const engine::EngineConfig& e, const Fault& fault, int rank) {
  if (fault.kind == "unreachable" && fault.rank == rank)
    return fmt::format("cannot reach {}: injected by SERVEBENCH_MPI_FAULT",
                       e.client.url.to_string());
  net::ClientContext client(e.client);
  const auto probe = net::probe_connect(client, e.timeouts.connect);
  if (!probe.ok())
    return fmt::format("cannot reach {}: {}", e.client.url.to_string(), probe.message);
  for (const net::Url& url : e.extra_endpoints) {
    net::ClientOptions o = e.client;
    o.url = url;
    net::ClientContext c(o);
    const auto p = net::probe_connect(c, e.timeouts.connect);
    if (!p.ok()) return fmt::format("cannot reach {}: {}", url.to_string(), p.message);
  }
  return "";
}

// Rank 0's side of the end of the run: every other participant's result, or its silence.
struct Collected {
  json header;
  std::vector<metrics::RequestRecord> records;
  bool received = false;
};

class Coordinator {
 public:
  explicit Coordinator(int participants)
      : last_seen_(participants, Clock::now()), results_(participants) {}

  // Drains heartbeats (called ~every 250 ms by rank 0 during its own run).
  void drain_heartbeats() {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (st.MPI_SOURCE < static_cast<int>(last_seen_.size()))
        last_seen_[st.MPI_SOURCE] = Clock::now();
    }
  }

  // Receives every participant's result; one silent for `silence` is given up. Returns the
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

// Frees a communicator on every way out.
struct CommGuard {
  MPI_Comm comm = MPI_COMM_NULL;
  ~CommGuard() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

}  // namespace

RankIdentity identify(const Session& mpi) {
  RankIdentity me;
  me.rank = mpi.rank();
  me.size = mpi.size();
  char buf[256] = {};
  me.host = gethostname(buf, sizeof buf - 1) == 0 ? buf : "?";
  return me;
}

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

Agreement agree(int code, const std::string& message, const RankIdentity& me, bool print,
                MPI_Comm comm) {
  const json mine = {{"code", code}, {"message", redact_text(message)}, {"name", me.name()}};
  const auto all = gather_strings(mine.dump(), 0, comm);
  Agreement out;
  std::string rank0_message;
  for (size_t r = 0; r < all.size(); ++r) {
    const json j = json::parse(all[r]);
    const int c = j["code"].get<int>();
    if (c == 0) continue;
    const std::string msg = j["message"].get<std::string>();
    const std::string named =
        r == 0 ? msg : fmt::format("rank {}: {}", j["name"].get<std::string>(), msg);
    if (out.code == 0) {
      out.code = c;
      out.message = named;
    }
    if (r == 0) rank0_message = msg;
    if (print && !msg.empty() && (r == 0 || msg != rank0_message))
      fmt::print(stderr, "servebench: {}\n", named);
  }
  MPI_Bcast(&out.code, 1, MPI_INT, 0, comm);
  out.message = bcast_string(out.message, 0, comm);
  return out;
}

uint64_t config_hash(const engine::EngineConfig& config, const json& extra) {
  json j = engine::config_to_json(config);
  j["extra"] = extra;
  uint64_t h = fnv1a(j.dump());
  const workload::PromptSource prompts(config.workload);
  for (uint64_t i = 0; i < 16; ++i) {
    const auto item = prompts.item(i);
    h = fnv1a(item.prompt, h);
    h = fnv1a(item.messages_json, h);
    h = fnv1a(std::to_string(item.max_tokens), h);
  }
  return h;
}

int participants_for(const engine::LoadConfig& load, int size) {
  const int64_t cap =
      load.mode == engine::LoadMode::closed ? load.concurrency : load.max_concurrency;
  return cap > 0 ? static_cast<int>(std::min<int64_t>(size, cap)) : size;
}

namespace {

// Rank 0: mpi.json (every participant's host, clock offset and reachability, the planned run
// facts), and a line for each rank that takes no part. Returns the manifest.
json write_manifest(const SplitRun& run, int k, const std::vector<std::string>& everyone) {
  engine::RunResult planned;
  planned.started_at = iso_utc_now();
  metrics::RunInfo info = run.run_info(planned);
  info.config["mpi_ranks"] = k;
  json manifest = {{"schema", "servebench.mpi/1"},
                   {"world_size", k},
                   {"ranks", json::array()},
                   {"run_info", run_info_to_json(info)}};
  for (const auto& s : everyone) manifest["ranks"].push_back(json::parse(s));
  results::write_file_atomically(run.dir + "/mpi.json", manifest.dump(2) + "\n");
  for (const auto& r : manifest["ranks"])
    if (!r["reachable"].get<bool>())
      fmt::print(stderr, "servebench: rank {}:{} takes no part: {}\n", r["host"].get<std::string>(),
                 r["rank"].get<int>(), r["error"].get<std::string>());
  return manifest;
}

// What one participant needs to run its share of the load.
struct ShareContext {
  const SplitRun& run;
  const RankIdentity& me;
  const Fault& fault;
  int participants = 1;
  ClockOffset clock;
  MPI_Comm active = MPI_COMM_NULL;     // the reachable participants (the start agreements)
  Coordinator* coordinator = nullptr;  // rank 0's
};

// This rank's share of the load, started at the agreed instants and streamed to its rank
// folder. Returns its rank.json state ("done" or "failed") and the engine's result.
json run_my_share(const ShareContext& c, engine::RunResult& result) {
  const int rank = c.me.rank, k = c.participants;
  engine::EngineConfig ec = c.run.engine;
  ec.load.shard_index = rank;
  ec.load.shard_count = k;
  if (ec.load.mode == engine::LoadMode::closed)
    ec.load.concurrency = share(ec.load.concurrency, k, rank);
  if (ec.load.max_concurrency > 0)
    ec.load.max_concurrency = share(ec.load.max_concurrency, k, rank);

  results::RequestLog log(rank_dir(c.run.dir, rank));
  int64_t appended = 0;
  const bool kill_me = c.fault.kind == "kill" && c.fault.rank == rank;
  plan::ProgressPrinter progress(stderr);
  const bool show_progress = rank == 0 && c.run.show_progress;
  int aligned = 0;
  engine::RunHooks hooks;
  hooks.on_record = [&](const metrics::RequestRecord& r) {
    log.append(r);
    if (kill_me && ++appended == c.fault.after) {
      // Flushes what the RequestLog holds so far, as its 1 s flusher would have by then.
      std::this_thread::sleep_for(1200ms);
      std::raise(SIGKILL);
    }
  };
  hooks.stop = c.run.stop;
  hooks.on_progress = [&](const engine::LiveTotals& t) {
    if (rank == 0) {
      c.coordinator->drain_heartbeats();
      if (show_progress) progress.update(t);
    } else {
      const int beat = 1;
      MPI_Send(&beat, 1, MPI_INT, 0, kTagHeartbeat, MPI_COMM_WORLD);
    }
  };
  hooks.align_start = [&](TimePoint proposed) {
    ++aligned;
    // 20 ms covers the reduction's own latency, so no rank is late for the instant.
    int64_t mine = to_reference_ns(proposed, c.clock) + 20'000'000;
    int64_t agreed = 0;
    MPI_Allreduce(&mine, &agreed, 1, MPI_INT64_T, MPI_MAX, c.active);
    return from_reference_ns(agreed, c.clock);
  };
  if (rank == 0 && c.run.leader_hooks) c.run.leader_hooks(hooks);
  json state = {{"rank", rank}, {"host", c.me.host}};
  try {
    result = engine::run_benchmark(ec, hooks);
    state["state"] = "done";
    state["interrupted"] = result.interrupted;
  } catch (const Error& e) {
    state["state"] = "failed";
    state["error"] = redact_text(e.what());  // rank.json and rank 0's messages
    result.records.clear();
  }
  // Every active rank takes part in both start agreements, whatever happened to it.
  while (aligned < 2) hooks.align_start(Clock::now());
  if (show_progress) progress.finish();
  log.close();
  state["records"] = result.records.size();
  state["workers"] = result.workers;
  state["started_at"] = result.started_at;
  return state;
}

// Rank 0: every participant's result (its own `state` and `result`, the others' as sent, a
// silent one's rank folder), merged into run.dir with the run's facts and telemetry.
void merge_at_leader(const SplitRun& run, int k, const json& manifest, const json& state,
                     engine::RunResult& result, Coordinator& coordinator, SplitRunResult& out) {
  out.dead = coordinator.collect(from_s(silence_limit_s()));
  out.ranks.resize(static_cast<size_t>(k));
  for (int r = 0; r < k; ++r) {
    RankResult& rr = out.ranks[static_cast<size_t>(r)];
    const json& m = manifest["ranks"][r];
    rr.rank = r;
    rr.host = m["host"].get<std::string>();
    rr.clock_offset_ns = m["clock_offset_ns"].get<int64_t>();
    rr.clock_uncertainty_ns = m["clock_uncertainty_ns"].get<int64_t>();
    if (std::find(out.dead.begin(), out.dead.end(), r) != out.dead.end()) {
      rr.state = "died";
      rr.error = fmt::format("no result and no heartbeat for {:.0f} s", silence_limit_s());
      int64_t skipped = 0;  // what its rank folder holds, when this host can see it
      rr.records = read_rank_records(rank_dir(run.dir, r) + "/requests.jsonl", &skipped);
      continue;
    }
    const json& h = r == 0 ? state : coordinator.result(r).header;
    rr.state = h.value("state", std::string("missing"));
    rr.error = h.value("error", std::string());
    rr.interrupted = h.value("interrupted", false);
    rr.records = r == 0 ? std::move(result.records) : std::move(coordinator.result(r).records);
  }
  engine::RunResult merged_run;
  merged_run.started_at = state.value("started_at", std::string());
  merged_run.workers = state.value("workers", 0);
  metrics::RunInfo info = run.run_info(merged_run);
  info.config["mpi_ranks"] = k;
  if (run.leader_telemetry) info.telemetry = run.leader_telemetry();
  out.summary = write_merged_run(run.dir, out.ranks, info);
  for (auto& r : out.ranks) {
    out.interrupted = out.interrupted || r.interrupted;
    std::vector<metrics::RequestRecord>().swap(r.records);  // written out; free them
  }
}

}  // namespace

SplitRunResult run_split(const SplitRun& run, const RankIdentity& me, const Fault& fault) {
  SplitRunResult out;
  const int rank = me.rank;
  const int k = run.participants > 0 ? std::min(run.participants, me.size) : me.size;
  CommGuard part;
  MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &part.comm);
  if (part.comm == MPI_COMM_NULL) {
    out.idle = true;
    return out;
  }
  auto refuse = [&out](int code, std::string why) {
    out.refused = code;
    out.error = std::move(why);
    return out;
  };

  // Clocks, then this rank's folder.
  const ClockOffset clock = estimate_clock_offset(part.comm);
  const std::string my_dir = rank_dir(run.dir, rank);
  std::error_code ec;
  std::filesystem::create_directories(my_dir, ec);
  const Agreement made = agree(
      ec ? static_cast<int>(ExitCode::usage) : 0,
      ec ? fmt::format("--output-dir '{}': cannot create {} ({})", run.dir, my_dir, ec.message())
         : "",
      me, run.print_refusals, part.comm);
  if (made.code != 0) return refuse(made.code, made.message);

  // Can this rank reach the target? One that cannot takes no part; rank 0 must.
  const std::string unreachable = redact_text(probe_target(run.engine, fault, rank));
  const json me_json = {{"rank", rank},
                        {"host", me.host},
                        {"clock_offset_ns", clock.offset_ns},
                        {"clock_uncertainty_ns", clock.uncertainty_ns},
                        {"reachable", unreachable.empty()},
                        {"error", unreachable}};
  const auto everyone = gather_strings(me_json.dump(), 0, part.comm);
  const std::string rank0_error = bcast_string(unreachable, 0, part.comm);
  if (!rank0_error.empty()) {
    refuse(static_cast<int>(ExitCode::unreachable),
           fmt::format("rank {} (the coordinator): {}", me.host + ":0", rank0_error));
    if (rank == 0 && run.print_refusals) fmt::print(stderr, "servebench: {}\n", out.error);
    return out;
  }
  const json manifest = rank == 0 ? write_manifest(run, k, everyone) : json();
  CommGuard active;
  MPI_Comm_split(part.comm, unreachable.empty() ? 0 : MPI_UNDEFINED, rank, &active.comm);

  // The load: this rank's share (none when it cannot reach the target).
  write_rank_state(my_dir, {{"rank", rank}, {"host", me.host}, {"state", "running"}});
  std::optional<Coordinator> coordinator;
  if (rank == 0) coordinator.emplace(k);
  engine::RunResult result;
  json state = {{"rank", rank}, {"host", me.host}, {"state", "failed"}, {"error", unreachable}};
  if (unreachable.empty())
    state = run_my_share(
        {run, me, fault, k, clock, active.comm, coordinator ? &*coordinator : nullptr}, result);
  write_rank_state(my_dir, state);
  out.stop_requested = run.stop && run.stop->load();

  // Results to rank 0, which merges them.
  if (rank != 0) {
    send_bytes(state.dump(), 0, kTagResult, MPI_COMM_WORLD);
    send_bytes(encode_records(result.records), 0, kTagResult, MPI_COMM_WORLD);
    return out;
  }
  merge_at_leader(run, k, manifest, state, result, *coordinator, out);
  return out;
}

}  // namespace sb::mpi
