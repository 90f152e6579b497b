// The GPU x model x precision x engine catalog (src/sim/catalog.h) and the tensor-parallel and
// precision terms of the cost model (src/sim/cost_model.h).
#include "sim/catalog.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "http_client.h"
#include "sim/cost_model.h"
#include "sim/server.h"

extern char** environ;

namespace sb::sim {
namespace {

using json = nlohmann::json;

double ms(Nanos d) {
  return to_ms(d);
}

std::string usage_message(const SimChoice& ch) {
  try {
    (void)config_of(ch);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << ch.gpu << " " << ch.model;
  return "";
}

TEST(Catalog, EveryModelsWeightsAndKvBytesFollowItsShape) {
  const PrecisionSpec& fp16 = find_precision("fp16");
  for (const ModelSpec& m : catalog_models()) {
    SCOPED_TRACE(m.name);
    EXPECT_FALSE(m.source.empty());
    EXPECT_FALSE(m.hf_id.empty());
    EXPECT_EQ(m.hidden, m.heads * m.head_dim);
    const MemoryFit f = memory_fit(m, find_gpu("H200"), fp16, 1, 2e9, 2048);
    EXPECT_DOUBLE_EQ(f.weights_bytes, m.params * 2);
    // GQA: 2 (K, V) x layers x KV heads x head_dim x 2 bytes.
    EXPECT_DOUBLE_EQ(f.kv_bytes_per_token, 2.0 * m.layers * m.kv_heads * m.head_dim * 2);
    SimConfig c = config_of({"H200", m.name, "vllm", "fp16", m.heads % 8 == 0 ? 8 : 4});
    CostModel cm(c);
    EXPECT_DOUBLE_EQ(cm.weights_bytes(), m.params * 2 / c.parallel.tp);
    EXPECT_EQ(c.model.name, m.hf_id);
  }
  // Spot values (config.json of each model).
  EXPECT_DOUBLE_EQ(
      memory_fit(find_model("llama-2-7b"), find_gpu("A10G"), fp16, 1, 2e9, 1).kv_bytes_per_token,
      524288);  // MHA: 2 x 32 x 32 x 128 x 2
  EXPECT_DOUBLE_EQ(
      memory_fit(find_model("llama-3.1-8b"), find_gpu("H100"), fp16, 1, 2e9, 1).kv_bytes_per_token,
      131072);  // GQA 8 KV heads: 2 x 32 x 8 x 128 x 2
  EXPECT_DOUBLE_EQ(
      memory_fit(find_model("llama-2-70b"), find_gpu("H100"), fp16, 1, 2e9, 1).kv_bytes_per_token,
      327680);  // 2 x 80 x 8 x 128 x 2
  EXPECT_DOUBLE_EQ(
      memory_fit(find_model("qwen2.5-7b"), find_gpu("H100"), fp16, 1, 2e9, 1).kv_bytes_per_token,
      57344);  // 2 x 28 x 4 x 128 x 2
}

TEST(Catalog, EveryGpuHasItsFiguresAndSource) {
  ASSERT_EQ(catalog_gpus().size(), 6u);
  for (const GpuSpec& g : catalog_gpus()) {
    SCOPED_TRACE(g.name);
    EXPECT_GT(g.memory_bytes, 20e9);
    EXPECT_GT(g.bandwidth_bytes_per_s, 100e9);
    EXPECT_GT(g.fp16_flops, 50e12);
    EXPECT_GT(g.interconnect_bytes_per_s, 0);
    EXPECT_GT(g.max_power_w, g.idle_power_w);
    EXPECT_GT(g.bandwidth_efficiency, 0);
    EXPECT_LE(g.bandwidth_efficiency, 1);
    EXPECT_FALSE(g.source.empty());
    const bool fp8 = g.name == "L4" || g.name == "L40S" || g.name == "H100" || g.name == "H200";
    EXPECT_EQ(g.fp8_flops > 0, fp8);
    if (fp8) {
      EXPECT_NEAR(g.fp8_flops / g.fp16_flops, 2, 0.05);
    }
    const bool nvlink = g.name == "A100" || g.name == "H100" || g.name == "H200";
    EXPECT_EQ(g.interconnect.rfind("NVLink", 0) == 0, nvlink);
  }
  EXPECT_DOUBLE_EQ(find_gpu("A10G").fp16_flops, 70e12);  // not the A10's 125 TF
  EXPECT_DOUBLE_EQ(find_gpu("H100").bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(find_gpu("H200").bandwidth_bytes_per_s, 4.8e12);
}

TEST(Catalog, ConfigOfSetsTheGpuModelAndPrecision) {
  SimConfig c = config_of({"H100", "llama-3.1-8b", "vllm", "bf16", 1});
  EXPECT_EQ(c.gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(c.gpu.bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(c.gpu.flops, 989e12);
  EXPECT_DOUBLE_EQ(c.model.params, 8030261248);
  EXPECT_EQ(c.model.num_layers, 32);
  EXPECT_EQ(c.model.kv_dim, 1024);  // 8 KV heads x 128
  EXPECT_EQ(c.model.hidden_size, 4096);
  EXPECT_EQ(c.model.name, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(c.server.preset, "vllm-h100-llama-3.1-8b-bf16-tp1");
  EXPECT_EQ(c.sched.max_total_tokens, 131072);  // vLLM: max_model_len = the model's context
  EXPECT_NO_THROW(validate(c));
  // Weights 15.01 GB per step (all but the 128256 x 4096 input embedding) at 3.35 TB/s x
  // efficiency.
  CostModel m(c);
  EXPECT_NEAR(ms(m.decode_step(1, 0)) - c.cost.step_overhead_ms,
              (8030261248.0 - 128256.0 * 4096) * 2 / (3.35e12 * c.gpu.bandwidth_efficiency) * 1e3,
              1e-3);
}

TEST(Catalog, NamesMatchCaseInsensitively) {
  SimConfig a = config_of({"h100", "LLAMA-3.1-8B", "VLLM", "FP8", 1});
  SimConfig b = config_of({"H100", "llama-3.1-8b", "vllm", "fp8", 1});
  EXPECT_EQ(a.server.preset, b.server.preset);
  EXPECT_DOUBLE_EQ(a.gpu.flops, b.gpu.flops);
  EXPECT_EQ(config_of({"a10g", "", "tgi", "", 1}).server.preset,
            "tgi-1.x-a10g-llama-2-7b-fp16-tp1");
}

TEST(Catalog, EmptyFieldsAreTheTgiPresetsSystem) {
  const SimChoice r = resolved({});
  EXPECT_EQ(r.gpu, "A10G");
  EXPECT_EQ(r.model, "llama-2-7b");
  EXPECT_EQ(r.engine, "tgi-1.x");
  EXPECT_EQ(r.dtype, "fp16");
  // The same machine as the tgi preset: the cost of a step within the parameter count's
  // rounding (6.74e9 there, 6,738,415,616 here).
  CostModel cat(config_of({}));
  CostModel preset(preset_config("tgi"));
  EXPECT_NEAR(ms(cat.decode_step(8, 4000)), ms(preset.decode_step(8, 4000)), 0.02);
  EXPECT_NEAR(ms(cat.prefill(500, 0)), ms(preset.prefill(500, 0)), 0.2);
  EXPECT_NEAR(static_cast<double>(cat.kv_capacity_tokens()),
              static_cast<double>(preset.kv_capacity_tokens()), 10);
}

TEST(Catalog, Fp8HalvesWeightAndKvBytesAndUsesFp8TensorCores) {
  CostModel fp16(config_of({"H100", "llama-3.1-8b", "vllm", "fp16", 1}));
  SimConfig c = config_of({"H100", "llama-3.1-8b", "vllm", "fp8", 1});
  CostModel fp8(c);
  EXPECT_DOUBLE_EQ(fp8.weights_bytes(), fp16.weights_bytes() / 2);
  EXPECT_DOUBLE_EQ(fp8.kv_bytes_per_token(), fp16.kv_bytes_per_token() / 2);
  EXPECT_DOUBLE_EQ(c.gpu.flops, 1979e12);
  EXPECT_EQ(c.model.dequant_overhead, 0);
  // Memory-bound decode: half the bytes, half the weight-read time.
  EXPECT_NEAR(ms(fp8.decode_step(1, 0)) - c.cost.step_overhead_ms,
              (ms(fp16.decode_step(1, 0)) - c.cost.step_overhead_ms) / 2, 1e-3);
  // Without FP8 tensor cores (A100): weight-only FP8 at the FP16 rate, with dequantisation.
  SimConfig a100 = config_of({"A100", "llama-3.1-8b", "vllm", "fp8", 1});
  EXPECT_DOUBLE_EQ(a100.gpu.flops, 312e12);
  EXPECT_DOUBLE_EQ(a100.model.dequant_overhead, 0.10);
}

TEST(Catalog, Int4AndInt8AreWeightOnlyWithDequantisation) {
  SimConfig fp16 = config_of({"L40S", "llama-3.1-8b", "vllm", "fp16", 1});
  SimConfig i4 = config_of({"L40S", "llama-3.1-8b", "vllm", "int4", 1});
  SimConfig i8 = config_of({"L40S", "llama-3.1-8b", "vllm", "int8", 1});
  EXPECT_NEAR(i4.model.bytes_per_param, 0.5195, 1e-4);
  EXPECT_DOUBLE_EQ(i8.model.bytes_per_param, 1);
  EXPECT_DOUBLE_EQ(i4.model.kv_bytes_per_elem, 2);  // fp16 KV
  EXPECT_DOUBLE_EQ(i4.gpu.flops, 362e12);           // matmuls at the FP16 rate
  const double w16 = ms(CostModel(fp16).decode_step(1, 0)) - fp16.cost.step_overhead_ms;
  const double w4 = ms(CostModel(i4).decode_step(1, 0)) - i4.cost.step_overhead_ms;
  // 0.52 / 2 of the bytes, x 1.25 for dequantisation.
  EXPECT_NEAR(w4, w16 * (0.5 + 2.5 / 128) / 2 * 1.25, 1e-3);
  // Compute-bound prefill: FP16 rate x 1.25.
  EXPECT_NEAR(ms(CostModel(i4).prefill(8000, 0)), ms(CostModel(fp16).prefill(8000, 0)) * 1.25,
              1e-2);
}

TEST(Catalog, TensorParallelSplitsWeightsAndKvAndAddsAllReduce) {
  SimConfig one = config_of({"H100", "llama-3.1-8b", "vllm", "fp16", 1});
  SimConfig two = config_of({"H100", "llama-3.1-8b", "vllm", "fp16", 2});
  CostModel m1(one), m2(two);
  EXPECT_DOUBLE_EQ(m2.weights_bytes(), m1.weights_bytes() / 2);
  EXPECT_DOUBLE_EQ(m2.kv_bytes_per_token(), m1.kv_bytes_per_token() / 2);
  EXPECT_GT(m2.kv_capacity_tokens(), 2 * m1.kv_capacity_tokens());  // half the weights too
  EXPECT_EQ(ms(m1.allreduce(64)), 0);
  // 2 all-reduces per layer: latency + 2 (N-1)/N x tokens x hidden x 2 B / 450 GB/s.
  const double ar_s = 2 * 32 * (8e-6 + 2.0 * 1 / 2 * 64 * 4096 * 2 / 450e9);
  EXPECT_NEAR(ms(m2.allreduce(64)), ar_s * 1e3, 1e-4);
  // Decode at batch 64: weight read (all but the input embedding) halves, the all-reduce is
  // added.
  const double w1 =
      (m1.weights_bytes() - 128256.0 * 4096 * 2) / (3.35e12 * one.gpu.bandwidth_efficiency);
  EXPECT_NEAR(ms(m2.decode_step(64, 0)), (two.cost.step_overhead_ms / 1e3 + w1 / 2 + ar_s) * 1e3,
              1e-3);
  // Replicated KV heads: qwen2.5-7b has 4 KV heads; over 4 GPUs each holds one.
  CostModel q4(config_of({"H100", "qwen2.5-7b", "vllm", "fp16", 4}));
  EXPECT_DOUBLE_EQ(q4.kv_bytes_per_token(), 2.0 * 28 * 1 * 128 * 2);
  // Fewer KV heads than GPUs: replicated (llama-3.1-70b's 8 heads on 8 GPUs: 1 each).
  CostModel l8(config_of({"H100", "llama-3.1-70b", "vllm", "fp16", 8}));
  EXPECT_DOUBLE_EQ(l8.kv_bytes_per_token(), 2.0 * 80 * 1 * 128 * 2);
}

TEST(CostModelTp, ReplicatesKvHeadsBeyondTheirCount) {
  SimConfig c;
  c.model.kv_dim = 2 * 128;  // 2 KV heads
  c.parallel.tp = 8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(c), 2.0 * 32 * 128 * 2);
  c.parallel.tp = 1;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_gpu(c), 2.0 * 32 * 256 * 2);
}

TEST(CostModelTp, MixedStepIsDecodePlusPrefillTokensInOnePass) {
  SimConfig c = config_of({"H100", "llama-3.1-8b", "vllm", "fp16", 2});
  CostModel m(c);
  EXPECT_EQ(m.mixed_step(16, 1000, 0, 0), m.decode_step(16, 1000));
  // Compute-bound linear layers: 16 decode tokens (output head included) and 2032 prompt
  // tokens (no output head); then attention (the resident KV's read and the prompt's pairs)
  // and the all-reduce.
  const double embed = 128256.0 * 4096;
  const double flop_s = c.gpu.flops * c.gpu.mfu;
  const double decode_s = 2.0 * (c.model.params - embed) / 2 / flop_s;
  const double prompt_s = 2.0 * (c.model.params - 2 * embed) / 2 / flop_s;
  const double pairs = prefill_attention_pairs(0, 2032);
  EXPECT_DOUBLE_EQ(pairs, 2032.0 * 2033 / 2);
  const double attention_s = pairs * 4 * 32 * 4096 / 2 / flop_s +
                             1000 * kv_bytes_per_token_per_gpu(c) /
                                 (c.gpu.bandwidth_bytes_per_s * c.gpu.bandwidth_efficiency);
  EXPECT_NEAR(ms(m.mixed_step(16, 1000, 2032, pairs)),
              c.cost.step_overhead_ms + (16 * decode_s + 2032 * prompt_s + attention_s) * 1e3 +
                  ms(m.allreduce(2048)),
              1e-3);
}

TEST(CostModel, DecodeReadsEveryWeightButTheInputEmbeddingAndThenTheKv) {
  SimConfig c = config_of({"H200", "llama-3.1-8b", "vllm", "fp8", 1});
  c.cost.step_overhead_ms = 0;
  CostModel m(c);
  const double bw = c.gpu.bandwidth_bytes_per_s * c.gpu.bandwidth_efficiency;
  const double weights_s = (c.model.params - 128256.0 * 4096) * 1 / bw;  // 1 byte per weight
  EXPECT_NEAR(ms(m.decode_step(1, 0)), weights_s * 1e3, 1e-6);
  // 64 KiB of FP8 KV per token (2 x 32 layers x 8 KV heads x 128 x 1 byte), read after the
  // weights: memory-bound decode is the sum of the two reads.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), 65536);
  EXPECT_NEAR(ms(m.decode_step(1, 100000)), (weights_s + 100000.0 * 65536 / bw) * 1e3, 1e-6);
  // The memory footprint keeps the embedding.
  EXPECT_DOUBLE_EQ(m.weights_bytes(), c.model.params);
}

TEST(CostModel, PrefillAttentionGrowsWithThePromptSquared) {
  SimConfig c = config_of({"H200", "llama-3.1-8b", "vllm", "fp8", 1});
  CostModel m(c);
  // A chunk later in a prompt attends to more keys than the same chunk at its start.
  EXPECT_DOUBLE_EQ(prefill_attention_pairs(2048, 2048) - prefill_attention_pairs(0, 2048),
                   2048.0 * 2048);
  const double linear_ms = ms(m.prefill(8000, 0));
  const double with_attention_ms = ms(m.prefill(8000, prefill_attention_pairs(0, 8000)));
  // 4 x 32 x 4096 x 8000^2 / 2 FLOPs of attention against 2 x 6.98e9 x 8000 of matmuls: +15%.
  EXPECT_NEAR(with_attention_ms / linear_ms, 1.15, 0.01);
}

TEST(CostModelTp, ValidateChecksTheParallelAndPrecisionFields) {
  SimConfig c;
  EXPECT_NO_THROW(validate(c));
  c.parallel.tp = 0;
  EXPECT_THROW(validate(c), Error);
  c = SimConfig{};
  c.model.dequant_overhead = -1;
  EXPECT_THROW(validate(c), Error);
  c = SimConfig{};
  c.parallel.interconnect_bytes_per_s = 0;
  EXPECT_THROW(validate(c), Error);
}

TEST(Catalog, UnknownNamesListTheKnownOnes) {
  std::string m = usage_message({"B200", "llama-3.1-8b", "vllm", "fp16", 1});
  EXPECT_NE(m.find("unknown GPU 'B200'"), std::string::npos) << m;
  EXPECT_NE(m.find("A10G, L4, L40S, A100, H100, H200"), std::string::npos) << m;
  m = usage_message({"H100", "mistral-7b", "vllm", "fp16", 1});
  EXPECT_NE(m.find("unknown model 'mistral-7b'"), std::string::npos) << m;
  EXPECT_NE(m.find("llama-2-7b, llama-2-13b, llama-2-70b, llama-3.1-8b, llama-3.1-70b, qwen2.5-7b"),
            std::string::npos)
      << m;
  m = usage_message({"H100", "llama-3.1-8b", "sglang", "fp16", 1});
  EXPECT_NE(m.find("unknown engine 'sglang'"), std::string::npos) << m;
  EXPECT_NE(m.find("tgi-1.x, vllm, trtllm, pytorch, fastapi"), std::string::npos) << m;
  m = usage_message({"H100", "llama-3.1-8b", "vllm", "fp4", 1});
  EXPECT_NE(m.find("unknown dtype 'fp4'"), std::string::npos) << m;
  EXPECT_NE(m.find("fp16, bf16, fp8, int8, int4"), std::string::npos) << m;
  m = usage_message({"H100", "qwen2.5-7b", "vllm", "fp16", 8});
  EXPECT_NE(m.find("tp 8 is not possible for qwen2.5-7b (28 attention heads): use 1, 2, 4"),
            std::string::npos)
      << m;
  m = usage_message({"H100", "llama-3.1-8b", "vllm", "fp16", 3});
  EXPECT_NE(m.find("tp 3"), std::string::npos) << m;
}

TEST(Catalog, A70bModelOnOneA10GShowsTheArithmetic) {
  const std::string m = usage_message({"A10G", "llama-2-70b", "tgi-1.x", "fp16", 1});
  // 68,976,648,192 x 2 B; KV 2 x 80 x 8 x 128 x 2 B = 0.3125 MiB; 23,028 MiB = 24.15 GB.
  for (const char* part :
       {"llama-2-70b fp16 on 1x A10G does not fit", "weights 137.95 GB / 1 GPU",
        "KV 0.312 MiB per token", "GPU memory 24.15 GB - reserve 2.00 GB", "= 22.15 GB",
        "use tp 8 or dtype int4 with tp 2 (sim --tp/--dtype, prof and sweep --sim-tp/--sim-dtype"})
    EXPECT_NE(m.find(part), std::string::npos) << part << " in: " << m;
  // Over 8 A10Gs it fits: 17.24 GB per GPU.
  EXPECT_NO_THROW(config_of({"A10G", "llama-2-70b", "tgi-1.x", "fp16", 8}));
  // A 70B model in fp16 on one H100 neither (141 GB of weights > 80 GB).
  const std::string h = usage_message({"H100", "llama-3.1-70b", "vllm", "fp16", 1});
  EXPECT_NE(h.find("weights 141.11 GB"), std::string::npos) << h;
  EXPECT_NE(h.find("use tp 2 or dtype fp8"), std::string::npos) << h;
}

TEST(Catalog, MemoryFitNeedsRoomForOneSequenceOfKv) {
  const ModelSpec& m = find_model("llama-2-13b");  // 26.03 GB fp16
  const GpuSpec& g = find_gpu("L40S");             // 48.3 GB
  const MemoryFit f = memory_fit(m, g, find_precision("fp16"), 1, 2e9, 2048);
  EXPECT_TRUE(f.fits);
  EXPECT_DOUBLE_EQ(f.free_bytes, 46068 * 1048576.0 - 2e9 - 13015864320.0 * 2);
  EXPECT_EQ(f.kv_capacity_tokens, static_cast<int64_t>(f.free_bytes / (2.0 * 40 * 5120 * 2)));
  // The same memory left, but the engine needs more KV than it holds.
  EXPECT_FALSE(memory_fit(m, g, find_precision("fp16"), 1, 2e9, f.kv_capacity_tokens + 1).fits);
}

TEST(Catalog, LongContextsAreLoweredToWhatTheKvCacheHolds) {
  // llama-3.1-8b on an L4: 131,072 tokens of context, KV room for about 46,000.
  SimConfig c = config_of({"L4", "llama-3.1-8b", "vllm", "fp16", 1});
  const int64_t cap = CostModel(c).kv_capacity_tokens();
  EXPECT_LT(cap, 131072);
  EXPECT_LE(c.sched.max_total_tokens, cap);
  EXPECT_GT(c.sched.max_total_tokens, cap - 16);
  EXPECT_LT(c.sched.max_input_tokens, c.sched.max_total_tokens);
  EXPECT_NO_THROW(validate(c));
}

TEST(Catalog, ListingNamesEveryEntryAndItsSource) {
  const std::string text = catalog_listing();
  for (const auto& g : catalog_gpus()) EXPECT_NE(text.find(g.name), std::string::npos);
  for (const auto& m : catalog_models()) EXPECT_NE(text.find(m.hf_id), std::string::npos);
  for (const auto& p : catalog_precisions()) EXPECT_NE(text.find(p.name), std::string::npos);
  for (const auto& e : catalog_engines()) EXPECT_NE(text.find(e), std::string::npos);
  EXPECT_NE(text.find("llm-analysis"), std::string::npos);
  EXPECT_NE(text.find("datasheet"), std::string::npos);
}

TEST(Catalog, AServerOfAChoiceAnswersInfoWithTheModelId) {
  SimConfig c = config_of({"H100", "llama-3.1-8b", "vllm", "fp8", 1});
  c.server.threads = 1;
  Server s(c);
  const uint16_t port = s.start();
  testing::Conn conn(port);
  conn.send("GET", "/info");
  const testing::Response r = conn.read();
  ASSERT_EQ(r.status, 200);
  const json info = json::parse(r.body);
  EXPECT_EQ(info["model_id"], "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(info["max_batch_total_tokens"], CostModel(c).kv_capacity_tokens());
  s.stop();
}

// `servebench sim --gpu ... --model ...` as a user runs it: the CLI's catalog flags.
TEST(Catalog, TheSimCommandServesACatalogChoice) {
  const std::string bin = SERVEBENCH_BINARY;
  if (access(bin.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << bin;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  const std::string port = std::to_string(ntohs(a.sin_port));
  std::vector<std::string> args = {bin,        "sim",  "--gpu",     "h100", "--model", "qwen2.5-7b",
                                   "--engine", "vllm", "--dtype",   "int4", "--tp",    "2",
                                   "--port",   port,   "--threads", "1"};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  json info;
  for (int i = 0; i < 100 && info.is_null(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      testing::Conn conn(static_cast<uint16_t>(std::stoi(port)));
      conn.send("GET", "/info");
      const testing::Response r = conn.read();
      if (r.status == 200) info = json::parse(r.body);
    } catch (const std::exception&) {
    }
  }
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_FALSE(info.is_null()) << "the simulator never answered on port " << port;
  EXPECT_EQ(info["model_id"], "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(info["max_batch_total_tokens"],
            CostModel(config_of({"H100", "qwen2.5-7b", "vllm", "int4", 2})).kv_capacity_tokens());
}

}  // namespace
}  // namespace sb::sim
