// Priority scheduling in the simulator's scheduler (SchedRequest::priority): with the batch
// full, waiting requests are admitted most urgent first, then in arrival order, under every
// prefill mode (fused, TGI's separate prefill, vLLM's chunked prefill). Exact model times.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/api.h"
#include "sim/sched_request_of.h"
#include "sim/scheduler.h"

namespace sb::sim {
namespace {

TimePoint at_ms(double ms) {
  return TimePoint{} + from_ms(ms);
}

// One request runs at a time (batch size 1), so every later one waits in the queue.
SimConfig one_slot_config(PrefillMode mode) {
  SimConfig c = preset_config("tgi");
  c.sched.batching = BatchPolicy::continuous;
  c.sched.prefill_mode = mode;
  c.sched.kv_allocation =
      mode == PrefillMode::chunked ? KvAllocation::paged : KvAllocation::reserve;
  c.sched.prefix_caching = false;
  c.sched.max_batch_size = 1;
  c.sched.queue_limit = 0;
  c.sched.overhead_ms = 1;
  c.sched.serial_lock = false;
  c.sched.waiting_served_ratio = 0;
  c.sched.max_batch_total_tokens = 0;
  c.sched.max_batch_prefill_tokens = 0;
  c.sched.max_num_batched_tokens = 4096;
  c.cost.kv_capacity_tokens = 1'000'000;
  return c;
}

struct Arrival {
  uint64_t id;
  double t_ms;
  int64_t priority;
};

// The order in which the requests were admitted (their admitted events' order).
std::vector<uint64_t> admission_order(const SimConfig& c, const std::vector<Arrival>& arrivals) {
  Scheduler s(c);
  std::vector<SchedEvent> ev;
  for (const Arrival& a : arrivals) {
    s.advance(at_ms(a.t_ms), ev);
    SchedRequest r{a.id, 100, 20, 20, {}, a.priority};
    EXPECT_EQ(s.submit(r, at_ms(a.t_ms)), Admission::accepted);
    s.advance(at_ms(a.t_ms), ev);
  }
  s.advance(at_ms(1e9), ev);
  std::vector<uint64_t> order;
  for (const auto& e : ev)
    if (e.kind == SchedEvent::Kind::admitted) order.push_back(e.id);
  return order;
}

TEST(SchedulerPriority, LaterUrgentRequestIsAdmittedBeforeEarlierNormalOnesInEveryMode) {
  for (PrefillMode mode : {PrefillMode::fused, PrefillMode::separate, PrefillMode::chunked}) {
    const SimConfig c = one_slot_config(mode);
    // 1 runs (20 tokens: far longer than the arrivals below); 2, 3 (normal, priority 1) wait;
    // 4 (high, priority 0) comes last and still goes next; then 2 and 3 in arrival order.
    const std::vector<uint64_t> order =
        admission_order(c, {{1, 0, 1}, {2, 5, 1}, {3, 10, 1}, {4, 15, 0}});
    EXPECT_EQ(order, (std::vector<uint64_t>{1, 4, 2, 3})) << static_cast<int>(mode);
    // The same arrivals with one priority: first come, first served.
    EXPECT_EQ(admission_order(c, {{1, 0, 1}, {2, 5, 1}, {3, 10, 1}, {4, 15, 1}}),
              (std::vector<uint64_t>{1, 2, 3, 4}))
        << static_cast<int>(mode);
  }
}

TEST(SchedulerPriority, ThreeClassesWaitByPriorityThenArrival) {
  const SimConfig c = one_slot_config(PrefillMode::separate);
  const std::vector<uint64_t> order = admission_order(
      c, {{1, 0, 2}, {2, 1, 2}, {3, 2, 1}, {4, 3, 0}, {5, 4, 1}, {6, 5, 0}, {7, 6, 2}});
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 4, 6, 3, 5, 2, 7}));
}

// With the batch full, a waiting urgent request's first token comes one request's service
// earlier than a normal one that arrived before it.
TEST(SchedulerPriority, UrgentFirstTokenComesBeforeEarlierNormalOnes) {
  const SimConfig c = one_slot_config(PrefillMode::fused);
  Scheduler s(c);
  std::vector<SchedEvent> ev;
  const auto submit = [&](uint64_t id, double t, int64_t prio) {
    s.advance(at_ms(t), ev);
    s.submit(SchedRequest{id, 100, 20, 20, {}, prio}, at_ms(t));
    s.advance(at_ms(t), ev);
  };
  submit(1, 0, 1);
  submit(2, 5, 1);
  submit(3, 15, 0);
  s.advance(at_ms(1e9), ev);
  const auto first_token = [&](uint64_t id) {
    for (const auto& e : ev)
      if (e.id == id && e.kind == SchedEvent::Kind::token) return e.time;
    return TimePoint::max();
  };
  EXPECT_LT(first_token(3), first_token(2));
  EXPECT_LT(first_token(1), first_token(3));
}

// Where the priority comes from: vLLM's body field on completions and chat (an integer, else
// 400 as vLLM's validation), or the x-priority-value header (parsed here) on any API.
TEST(SchedulerPriority, ParsedFromVllmsBodyFieldOrTheHeader) {
  const SimConfig c = preset_config("tgi");
  const auto parse = [&](ApiKind api, std::string_view body) {
    return parse_generate(api, body, c);
  };
  auto g = parse(ApiKind::completions, R"({"prompt":"abcd","max_tokens":4,"priority":-3})");
  ASSERT_TRUE(std::holds_alternative<GenRequest>(g));
  EXPECT_EQ(std::get<GenRequest>(g).priority, -3);
  EXPECT_EQ(sched_request_of(1, std::get<GenRequest>(g)).priority, -3);
  g = parse(ApiKind::chat,
            R"({"messages":[{"role":"user","content":"abcd"}],"max_tokens":4,"priority":2})");
  ASSERT_TRUE(std::holds_alternative<GenRequest>(g));
  EXPECT_EQ(std::get<GenRequest>(g).priority, 2);
  g = parse(ApiKind::completions, R"({"prompt":"abcd","max_tokens":4,"priority":"high"})");
  ASSERT_TRUE(std::holds_alternative<HttpError>(g));
  EXPECT_EQ(std::get<HttpError>(g).status, 400);
  EXPECT_NE(std::get<HttpError>(g).message.find("priority"), std::string::npos);
  // No field: unset, scheduled as 0 (first come, first served).
  g = parse(ApiKind::tgi_stream, R"({"inputs":"abcd","parameters":{"max_new_tokens":4}})");
  ASSERT_TRUE(std::holds_alternative<GenRequest>(g));
  EXPECT_FALSE(std::get<GenRequest>(g).priority);
  EXPECT_EQ(sched_request_of(1, std::get<GenRequest>(g)).priority, 0);

  EXPECT_EQ(parse_priority_value("0"), 0);
  EXPECT_EQ(parse_priority_value("17"), 17);
  EXPECT_EQ(parse_priority_value("-2"), -2);
  for (std::string_view bad : {"", "high", "1.5", " 1", "1 ", "+1", "99999999999999999999"})
    EXPECT_FALSE(parse_priority_value(bad)) << bad;
}

}  // namespace
}  // namespace sb::sim
