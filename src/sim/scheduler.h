#pragma once
// The simulated engine's scheduler: pure (no I/O, no real clock), driven by the caller's time
// points, so tests and `servebench predict` run it in fake or virtual time.
//
// Model (docs/simulator.md, "The engine model"): a request arrives, spends the per-request
// overhead (in parallel, or under the serial lock inside the engine), waits in a queue (FIFO
// within a priority, SchedRequest::priority: a more urgent request waits ahead of every less
// urgent one, in every prefill mode; a preempted request goes back to the front of its own
// priority),
// is admitted into the running batch when the policy, the batch size and the KV memory allow,
// has its prompt prefilled and then gets one token per decode step. How prefill shares the GPU
// with decoding is SimConfig::sched.prefill_mode:
//   fused:    a step that admits requests prefills them and decodes the batch: duration =
//             [serial overhead] + prefill(new prompt tokens) + decode_step(batch, resident KV);
//             every running request gets a token at its end. A lone request takes
//             overhead + prefill(p) + n decode steps.
//   separate: TGI 1.x. Prefill is its own forward pass, cost prefill(new prompt tokens); the
//             running batch waits through it and the new requests get their first token at
//             its end. Before each decode step the router prefills waiting requests only if
//             floor(running x waiting_served_ratio) of them wait or max_waiting_tokens decode
//             steps passed since the last prefill (an idle engine prefills at once), taking them
//             in order within max_batch_prefill_tokens and max_batch_total_tokens.
//   chunked:  vLLM. Each step has max_num_batched_tokens: one per decoding sequence first, then
//             chunks of prompts (partly prefilled ones first, then newly admitted ones); cost
//             mixed_step(decoding, resident KV, prompt tokens). A request gets its first token
//             at the end of the step that completes its prompt.
// KV (SimConfig::sched.kv_allocation): reserve holds prompt + max_new tokens from admission to the
// end; paged holds ceil((prompt + generated) / kv_block_tokens) blocks, taking a block when a
// sequence crosses into one. When no block is free, the most recently admitted running request
// is preempted by recompute: it frees its blocks, goes back to the front of the queue and, when
// readmitted, prefills its prompt and the tokens it had generated again (its tokens already
// sent stay sent; its next token continues the count).
// Encoder passes (SchedRequest::encode_only) queue, batch and prefill like prompts and finish
// at the end of the step that completes their prompt; they add no decode work.
// Prefix caching: a request whose leading prompt blocks (SchedRequest::prefix_blocks) are in
// the cache prefills only the rest (at least one token); its blocks are cached once its prefill
// completes.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "sim/config.h"
#include "sim/cost_model.h"
#include "sim/prefix_cache.h"

namespace sb::sim {

struct SchedRequest {
  uint64_t id = 0;
  int64_t prompt_tokens = 0;
  int64_t max_new_tokens = 0;  // KV reservation = prompt + max_new
  int64_t output_tokens = 0;   // tokens to generate (<= max_new_tokens; EOS may stop early)
  // Chained hashes of the prompt's full KV blocks (sim/prefix_cache.h block_hashes), block 0
  // first; empty: the request shares no prefix the cache could know.
  std::vector<uint64_t> prefix_blocks;
  // Lower is served earlier (vLLM's --scheduling-policy priority): the waiting queue is
  // ordered by priority, then by arrival. All 0 (the default): first come, first served.
  int64_t priority = 0;
  // An encoder pass (embeddings, rerank; sim/pooling_api.h): max_new_tokens 0 and
  // output_tokens 1, its one token event the end of the step that completes its prompt (the
  // pooled result). It is never a decoding sequence: a fused step of encoder passes only costs
  // their prefill, with no decode step.
  bool encode_only = false;
  // encode_only: the inputs the pass encodes side by side (a wrapper server's one forward over
  // a request's whole batch); prompt_tokens is their sum, and the attention pairs are those of
  // `sequences` sequences of equal length.
  int64_t sequences = 1;
};

enum class Admission {
  accepted,    // queued
  queue_full,  // queue_limit requests already wait (TGI overloaded/429)
  kv_full,     // KV reservation cannot fit (ever, or now with kv_full=reject): 503 / overloaded
};

struct SchedEvent {
  enum class Kind { admitted, token } kind = Kind::token;
  uint64_t id = 0;
  TimePoint time{};    // model time of the event (admitted: the start of its first step)
  int64_t index = 0;   // token: 1-based index
  int batch_size = 0;  // running batch size of the step
  bool last = false;   // token: the request's last token
  // admitted: prompt tokens the prefix cache served at its first admission (their prefill
  // skipped); llama.cpp's timings.cache_n.
  int64_t cached_tokens = 0;
};

struct SchedStats {
  int64_t waiting = 0;         // in the queue (including the overhead phase)
  int64_t running = 0;         // in the batch
  int64_t kv_used_tokens = 0;  // reserved (reserve) or held in blocks (paged) by running requests
  int64_t kv_capacity_tokens = 0;
  int64_t batch_max_tokens = 0;  // sum of prompt + max_new of the running batch
  int64_t resident_kv_tokens = 0;
  bool busy = false;              // a step is in progress
  Nanos busy_total{0};            // total model time spent in steps (completed + current start)
  int64_t preemptions = 0;        // requests preempted by recompute so far
  int64_t prefill_tokens = 0;     // prompt (and recomputed) tokens prefilled so far
  int64_t prefix_hit_tokens = 0;  // prompt tokens the prefix cache spared so far
};

class Scheduler {
 public:
  explicit Scheduler(const SimConfig& c);

  // Offers a request arriving at `now`. Call advance(now) before (to bring the model up
  // to date) and after (to start it at once when the engine is idle).
  Admission submit(const SchedRequest& r, TimePoint now);
  // Drops a request wherever it is (client gone); frees its KV. No more events for it.
  void cancel(uint64_t id);
  // Processes every model event with time <= now, in time order, appending to `out`.
  void advance(TimePoint now, std::vector<SchedEvent>& out);
  // The next model event time, if any.
  std::optional<TimePoint> next_event() const;

  SchedStats stats() const;
  const CostModel& cost() const { return cost_; }

 private:
  struct Req {
    SchedRequest r;
    TimePoint ready{};
    int64_t generated = 0;  // tokens sent
    int64_t todo = 0;       // prompt (+ recomputed) tokens still to prefill at this admission
    int64_t chunk = 0;      // tokens of `todo` the current step prefills
    bool decoding = false;  // takes part in the current step as a decoding sequence
    int64_t blocks = 0;     // paged: KV blocks held
    bool admitted = false;  // its admitted event was sent
    bool cancelled = false;
    int64_t kv_need() const { return r.prompt_tokens + r.max_new_tokens; }
    int64_t context() const { return r.prompt_tokens + generated; }
  };
  // The attention pairs of q's current chunk: its last `todo` context positions are still to
  // prefill (cached prefix blocks before them are skipped), the chunk is their first `chunk`.
  static double chunk_pairs(const Req& q) {
    if (q.r.sequences > 1)  // side-by-side inputs, each attending within itself
      return static_cast<double>(q.r.sequences) *
             prefill_attention_pairs(0, q.chunk / q.r.sequences);
    return prefill_attention_pairs(q.context() - q.todo, q.chunk);
  }
  enum class StepKind { fused, prefill, decode, chunked };

  void finish_step(TimePoint t, std::vector<SchedEvent>& out);
  void try_start_step(TimePoint t, std::vector<SchedEvent>& out);
  void start_fused(TimePoint t, std::vector<SchedEvent>& out);
  void start_separate(TimePoint t, std::vector<SchedEvent>& out);
  void start_chunked(TimePoint t, std::vector<SchedEvent>& out);
  // Moves waiting_.front() into the batch (KV taken, prefix cache consulted, todo set); sends
  // its admitted event the first time. Returns the serial overhead it adds to the step.
  Nanos admit_front(TimePoint t, std::vector<SchedEvent>& out);
  bool fits_now(const Req& q) const;  // the KV the front request needs is free
  // TGI's Queue::next_batch: admits from the front within the token budgets if at least
  // min_size (when given) can go. Returns the serial overhead the admitted add.
  std::optional<Nanos> tgi_next_batch(std::optional<size_t> min_size, TimePoint t,
                                      std::vector<SchedEvent>& out);
  int64_t tgi_tokens(const Req& q) const;  // TGI's padded prompt + max_new
  // Paged: gives every decoding request the blocks its next token needs, preempting from the
  // back of the batch when none is free.
  void grow_or_preempt();
  void preempt_back();
  // Queues q behind the waiting requests of its priority and more urgent ones (`front`:
  // ahead of those of its own priority instead).
  void enqueue_waiting(Req q, bool front);
  void release(Req& q);  // frees q's KV
  int64_t resident_tokens() const;
  void begin(TimePoint t, Nanos dur, StepKind kind);

  SimConfig cfg_;
  CostModel cost_;
  int batch_cap_;
  Nanos window_;
  int64_t block_ = 16;
  int64_t total_blocks_ = 0;  // paged
  int64_t used_blocks_ = 0;   // paged
  PrefixCache prefix_;
  std::deque<Req> pending_;  // in the (parallel) overhead phase, ordered by ready time
  std::deque<Req> waiting_;
  std::vector<Req> running_;
  int64_t kv_reserved_ = 0;
  int64_t kv_waiting_ = 0;  // reservations of pending + waiting
  std::optional<TimePoint> step_end_;
  TimePoint step_start_{};
  StepKind step_kind_ = StepKind::fused;
  int step_batch_ = 0;
  Nanos busy_done_{0};
  // separate (TGI): decode steps since the last prefill, and whether the next decision may
  // prefill (not right after a prefill that joined a running batch).
  int waiting_tokens_ = 0;
  bool may_concat_ = false;
  int64_t preemptions_ = 0;
  int64_t prefill_tokens_ = 0;
  int64_t prefix_hit_tokens_ = 0;
};

}  // namespace sb::sim
