// Engine behaviours (sim/engine_behaviour.h): names, errors, what each sets.
#include "sim/engine_behaviour.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::sim {
namespace {

TEST(EngineBehaviour, UnknownNameListsTheKnownOnes) {
  SimConfig c;
  try {
    apply_engine_behaviour("sglang", c);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'sglang'"), std::string::npos) << m;
    for (const auto& n : engine_names()) EXPECT_NE(m.find(n), std::string::npos) << m;
  }
  EXPECT_EQ(engine_names(),
            (std::vector<std::string>{"tgi-1.x", "vllm", "trtllm", "pytorch", "fastapi"}));
}

TEST(EngineBehaviour, EveryBehaviourValidatesOnTheDefaults) {
  for (const auto& n : engine_names()) {
    SimConfig c;
    apply_engine_behaviour(n, c);
    EXPECT_NO_THROW(validate(c)) << n;
  }
}

TEST(EngineBehaviour, SchedulingOfEachEngine) {
  SimConfig tgi, vllm, trt, pt, fa;
  apply_engine_behaviour("tgi-1.x", tgi);
  apply_engine_behaviour("vllm", vllm);
  apply_engine_behaviour("trtllm", trt);
  apply_engine_behaviour("pytorch", pt);
  apply_engine_behaviour("fastapi", fa);
  EXPECT_EQ(tgi.sched.prefill_mode, PrefillMode::separate);
  EXPECT_EQ(tgi.sched.kv_allocation, KvAllocation::reserve);
  EXPECT_DOUBLE_EQ(tgi.sched.waiting_served_ratio, 1.2);
  EXPECT_EQ(tgi.sched.max_waiting_tokens, 20);
  EXPECT_EQ(tgi.sched.max_batch_prefill_tokens, 4096);
  EXPECT_FALSE(tgi.sched.prefix_caching);
  EXPECT_EQ(vllm.sched.prefill_mode, PrefillMode::chunked);
  EXPECT_EQ(vllm.sched.kv_allocation, KvAllocation::paged);
  EXPECT_EQ(vllm.sched.kv_block_tokens, 16);
  EXPECT_TRUE(vllm.sched.prefix_caching);
  EXPECT_EQ(trt.sched.prefill_mode, PrefillMode::chunked);
  EXPECT_EQ(pt.sched.batching, BatchPolicy::none);
  EXPECT_FALSE(pt.sched.serial_lock);
  EXPECT_EQ(fa.sched.batching, BatchPolicy::none);
  EXPECT_TRUE(fa.sched.serial_lock);
  EXPECT_GT(fa.cost.step_overhead_ms, pt.cost.step_overhead_ms);
  EXPECT_GT(fa.sched.overhead_ms, pt.sched.overhead_ms);
}

TEST(EngineBehaviour, PresetsAreBehavioursOnTheA10GDefaults) {
  SimConfig tgi;
  apply_engine_behaviour("tgi-1.x", tgi);
  const SimConfig p = preset_config("tgi");
  EXPECT_EQ(p.sched.prefill_mode, tgi.sched.prefill_mode);
  EXPECT_DOUBLE_EQ(p.gpu.bandwidth_efficiency, tgi.gpu.bandwidth_efficiency);
  EXPECT_DOUBLE_EQ(p.gpu.flops, 70e12);  // A10G, not the A10's 125 TF
  EXPECT_EQ(p.server.preset, "tgi");
}

TEST(EngineBehaviour, ValidateNamesBadSchedulingFields) {
  auto message = [](SimConfig c) {
    try {
      validate(c);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  SimConfig c = preset_config("tgi");
  c.sched.kv_allocation = KvAllocation::paged;
  EXPECT_NE(message(c).find("kv-allocation"), std::string::npos);
  c = preset_config("pytorch");
  c.sched.prefill_mode = PrefillMode::chunked;
  EXPECT_NE(message(c).find("--batching continuous"), std::string::npos);
  c = preset_config("tgi");
  c.sched.max_batch_prefill_tokens = 512;  // below max-input-tokens 1024
  EXPECT_NE(message(c).find("max-batch-prefill-tokens"), std::string::npos);
  c = preset_config("tgi");
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.max_num_batched_tokens = 8;
  EXPECT_NE(message(c).find("max-num-batched-tokens"), std::string::npos);
  EXPECT_THROW(prefill_mode_from_string("split"), Error);
  EXPECT_THROW(kv_allocation_from_string("swap"), Error);
}

}  // namespace
}  // namespace sb::sim
