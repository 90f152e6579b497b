#pragma once
// One load-generating thread: its own event loop, connections, adapter and
// records (docs/architecture.md: nothing shared on the hot path; merged after join).
// The engine hands it phases; the worker runs its share of each.
#include <array>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/asio.h"
#include "config/engine_config.h"
#include "engine/loop_lag.h"
#include "engine/record_finisher.h"
#include "engine/request_runner.h"
#include "metrics/request_record.h"
#include "workload/prompt_source.h"

namespace sb::engine {

// One stage of a run (warm-up, then measurement), shared read-only by all workers
// except the `next` index counter.
struct Phase {
  bool warmup = false;
  uint64_t first_index = 0;              // request ids in [first_index, end_index)
  uint64_t end_index = UINT64_MAX;       // UINT64_MAX: bounded by stop_at only
  TimePoint start;                       // phase start: schedule offsets count from here
  TimePoint stop_at = TimePoint::max();  // no request is issued at or after this instant
  LoadMode mode = LoadMode::closed;
  const std::vector<Nanos>* schedule = nullptr;  // open loop: offset of request first_index + k
  // Closed loop: this process's next claim k; its id is first_index + k * shard_count +
  // shard_index (LoadConfig), i.e. first_index + k in a single-process run.
  std::atomic<uint64_t> next{0};
  // Sessions (LoadConfig::sessions; closed loop only): `next` claims sessions, session
  // k * shard_count + shard_index, up to end_index sessions (UINT64_MAX: bounded by stop_at);
  // their turns take the request ids first_index + j * shard_count + shard_index, j claimed
  // from next_id in the order the turns are sent.
  bool sessions = false;
  std::atomic<uint64_t> next_id{0};
};

// Live counters, written by the worker thread only, read by the progress display.
struct WorkerCounters {
  // Coarse TTFT histogram for the live display only (the results keep exact
  // values): bucket b holds TTFTs in [2^(b/8) - 1, 2^((b+1)/8) - 1) ms.
  static constexpr int kTtftBuckets = 192;
  static int ttft_bucket(double ms);
  static double ttft_bucket_ms(int bucket);  // the bucket's midpoint
  std::array<std::atomic<uint32_t>, kTtftBuckets> ttft{};
  std::atomic<uint64_t> started{0};
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> output_tokens{0};
  std::atomic<int64_t> in_flight{0};
};

using RecordSink = std::function<void(const metrics::RequestRecord&)>;

// True on a thread that runs a worker's event loop (a check for code that must stay off it,
// e.g. quality scoring; tests).
bool on_event_loop_thread();

class Worker {
 public:
  struct Shared {
    const EngineConfig& config;
    const net::ClientContext& client;
    const workload::PromptSource& prompts;
    TimePoint run_start;
    // Called once per request after it ends: on the worker's loop thread, or on its finisher
    // thread when the run recounts tokens or scores quality (record_finisher.h). Thread-safe.
    const RecordSink& sink;
    const std::atomic<bool>& stop;  // set on interrupt: issue nothing more
    // Several endpoints (EngineConfig::extra_endpoints): clients[i] serves endpoint i
    // (clients[0] is `client`), picker chooses one per request. Null: `client` only.
    const std::vector<const net::ClientContext*>* clients = nullptr;
    EndpointPicker* picker = nullptr;
    bool keep_records = true;  // false: records go to `sink` only (RunHooks::keep_records)
  };
  Worker(int index, int worker_count, Shared shared);
  ~Worker();

  // Runs this worker's share of a phase: `slots` closed-loop slots, or (open
  // loop) the ids i with i % worker_count == index, at most `slots` in flight
  // (0 = no cap). The future is ready when the share is done.
  std::future<void> run_phase(Phase& phase, int64_t slots);
  // Closes every connection, failing in-flight requests as `cancelled`.
  void cancel_in_flight();
  // Stops the event loop and joins the thread, then delivers what the finisher still holds
  // and joins it; then records() may be taken.
  void join();
  std::vector<metrics::RequestRecord>& records() { return records_; }
  // The latest t_end_ns of this worker's requests (kept or not); 0 before any ended.
  int64_t last_end_ns() const { return last_end_ns_; }
  const WorkerCounters& counters() const { return counters_; }
  // How late this worker's loop ran (loop_lag.h); read after join().
  const LoopLagStats& loop_lag() const { return lag_probe_.stats(); }

 private:
  awaitable<void> closed_slot(Phase& phase);
  awaitable<void> open_dispatch(Phase& phase, int64_t cap);
  awaitable<void> one_request(Phase& phase, uint64_t id, TimePoint t_sched);
  // Sessions: a closed-loop slot over sessions, and one session's turns in order; a turn that
  // fails ends its session (there is no answer to carry on).
  awaitable<void> session_slot(Phase& phase);
  awaitable<void> run_session(Phase& phase, uint64_t session);
  // Sends `item` as `record` (id, warmup, t_sched and any session fields set), with
  // `more_headers` after the usual ones, and delivers the record. Returns the answer's text and
  // output tokens when the request succeeded, nullopt when it failed.
  struct Answer {
    std::string text;
    int64_t output_tokens = 0;
  };
  awaitable<std::optional<Answer>> send_item(metrics::RequestRecord record, workload::WorkItem item,
                                             std::string more_headers);
  std::unique_ptr<Channel> acquire_channel(size_t endpoint);
  void release_channel(std::unique_ptr<Channel> channel, size_t endpoint);
  void wake(asio::steady_timer& timer) { timer.cancel(); }
  // The post-processing of one record and its delivery (sink, records_, last_end_ns_): on the
  // finisher's thread when there is one, else on the loop (then it has no heavy work to do).
  void finish(FinishJob& job);

  int index_;
  int worker_count_;
  Shared shared_;
  // One thread runs this loop and every socket and timer on it lives and is used on that
  // thread (other threads only post: run_phase, cancel_in_flight, join), so the reactor's
  // per-descriptor lock is dropped (UNSAFE_IO: a lock and an unlock per wake-up and socket
  // operation); the scheduler's queue keeps its lock for those posts.
  asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::unique_ptr<protocol::Adapter> adapter_;
  std::vector<RequestTemplate> templates_;  // one per endpoint
  // Per endpoint: channels with an open connection at the back (taken first), closed ones
  // (reconnected on their next request, buffers kept) at the front.
  std::vector<std::vector<std::unique_ptr<Channel>>> idle_;
  std::vector<Channel*> active_;
  bool cancelled_ = false;
  bool keep_text_ = false;  // record output_text: asked for, or needed to score quality
  // Written by finish() only (one thread: the finisher's when there is one, else the loop's).
  std::vector<metrics::RequestRecord> records_;
  int64_t last_end_ns_ = 0;
  WorkerCounters counters_;
  int64_t in_flight_ = 0;
  asio::steady_timer slot_freed_;
  LoopLagProbe lag_probe_;
  // Tokenizer recounts and quality scores, off the loop; null when the run has neither.
  std::unique_ptr<RecordFinisher> finisher_;
  std::thread thread_;
};

}  // namespace sb::engine
