#include "sim/catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/cost_model.h"
#include "sim/engine_choice.h"

namespace sb::sim {
namespace {

constexpr double kMiB = 1048576.0;
// The KV room a choice must leave: one sequence of this many tokens (or of the engine's
// max_total_tokens when smaller).
constexpr int64_t kMinKvTokens = 2048;

// Sources, cited once.
constexpr const char* kLlmAnalysis =
    "llm-analysis (github.com/cli99/llm-analysis, "
    "llm_analysis/gpu_configs/";
constexpr const char* kPcieLatency =
    "all-reduce latency 20 us over PCIe: an assumption (NCCL ring without NVLink)";
constexpr const char* kNvlinkLatency =
    "all-reduce latency 8 us: llm-analysis's intra_node_min_message_latency";
constexpr const char* kEfficiency =
    "efficiencies: decode 80% of peak bandwidth (AIConfigurator's memory-bandwidth factor; Vidur "
    "operator profiles 75-80%), prefill 70% of peak FLOP/s (Vidur: 70-75%)";

std::vector<GpuSpec> make_gpus() {
  const auto src = [](const std::string& own, const char* latency) {
    return own + "; " + kEfficiency + "; " + latency;
  };
  return {
      {"A10G", "NVIDIA A10G", 23028 * kMiB, 600e9, 70e12, 0, 0.8, 0.7, "PCIe 4.0 x16", 32e9, 20, 60,
       300,
       src(std::string("AWS EC2 G5 (24 GB GDDR6, 600 GB/s; AWS publishes no FLOP/s); 70 TFLOP/s "
                       "FP16 and 32 GB/s PCIe from ") +
               kLlmAnalysis + "a10g-pcie-24gb.json); 125 TFLOP/s is the A10, not the A10G",
           kPcieLatency)},
      {"L4", "NVIDIA L4", 23034 * kMiB, 300e9, 121e12, 242e12, 0.8, 0.7, "PCIe 4.0 x16", 32e9, 20,
       16, 72,
       src("NVIDIA L4 datasheet (24 GB GDDR6, 300 GB/s, FP16 242 / FP8 485 TFLOP/s with sparsity: "
           "half dense; 72 W)",
           kPcieLatency)},
      {"L40S", "NVIDIA L40S", 46068 * kMiB, 864e9, 362e12, 733e12, 0.8, 0.7, "PCIe 4.0 x16", 32e9,
       20, 35, 350,
       src("NVIDIA L40S datasheet (48 GB GDDR6, 864 GB/s, FP16 362 / FP8 733 TFLOP/s dense; 350 W)",
           kPcieLatency)},
      {"A100", "NVIDIA A100-SXM4-80GB", 81920 * kMiB, 2039e9, 312e12, 0, 0.8, 0.7, "NVLink 3",
       300e9, 8, 55, 400,
       src("NVIDIA A100 datasheet, SXM 80 GB (2,039 GB/s, FP16 312 TFLOP/s dense, no FP8; NVLink "
           "600 GB/s = 300 GB/s per direction; 400 W)",
           kNvlinkLatency)},
      {"H100", "NVIDIA H100 80GB HBM3", 81559 * kMiB, 3350e9, 989e12, 1979e12, 0.8, 0.7, "NVLink 4",
       450e9, 8, 70, 700,
       src("NVIDIA H100 datasheet, SXM (80 GB HBM3, 3.35 TB/s, BF16 989 / FP8 1,979 TFLOP/s dense; "
           "NVLink 900 GB/s = 450 GB/s per direction; 700 W)",
           kNvlinkLatency)},
      {"H200", "NVIDIA H200", 143771 * kMiB, 4800e9, 989e12, 1979e12, 0.8, 0.7, "NVLink 4", 450e9,
       8, 75, 700,
       src("NVIDIA H200 datasheet, SXM (141 GB HBM3e, 4.8 TB/s, BF16 989 / FP8 1,979 TFLOP/s "
           "dense; "
           "NVLink 900 GB/s = 450 GB/s per direction; 700 W)",
           kNvlinkLatency)},
  };
}

std::vector<ModelSpec> make_models() {
  const auto hf = [](const std::string& id) {
    return "config.json of huggingface.co/" + id +
           " (layers, hidden, heads, KV heads, context, vocab); "
           "parameters: the safetensors total on the model page";
  };
  return {
      {"llama-2-7b", "meta-llama/Llama-2-7b-chat-hf", 6738415616, 32, 4096, 32, 32, 128, 4096,
       hf("meta-llama/Llama-2-7b-chat-hf"), 32000},
      {"llama-2-13b", "meta-llama/Llama-2-13b-chat-hf", 13015864320, 40, 5120, 40, 40, 128, 4096,
       hf("meta-llama/Llama-2-13b-chat-hf"), 32000},
      {"llama-2-70b", "meta-llama/Llama-2-70b-chat-hf", 68976648192, 80, 8192, 64, 8, 128, 4096,
       hf("meta-llama/Llama-2-70b-chat-hf"), 32000},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", 8030261248, 32, 4096, 32, 8, 128, 131072,
       hf("meta-llama/Llama-3.1-8B-Instruct"), 128256},
      {"llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", 70553706496, 80, 8192, 64, 8, 128,
       131072, hf("meta-llama/Llama-3.1-70B-Instruct"), 128256},
      {"qwen2.5-7b", "Qwen/Qwen2.5-7B-Instruct", 7615616512, 28, 3584, 28, 4, 128, 32768,
       hf("Qwen/Qwen2.5-7B-Instruct"), 152064},
      // Encoders, for /v1/embeddings and /v1/rerank (docs/simulator.md, "Embeddings, rerank
      // and image encoders"): served as prompt-only passes; the cost model's causal attention
      // pairs undercount their bidirectional attention by about half (a small term at 512
      // tokens or fewer).
      {"bge-large-en-v1.5", "BAAI/bge-large-en-v1.5", 335141888, 24, 1024, 16, 16, 64, 512,
       hf("BAAI/bge-large-en-v1.5") + " (BERT-large)", 30522},
      {"clip-vit-l-14", "openai/clip-vit-large-patch14", 304293888, 24, 1024, 16, 16, 64, 257,
       "vision_config of huggingface.co/openai/clip-vit-large-patch14's config.json (24 layers, "
       "hidden 1024, 16 heads, 224 px in 14 px patches: 256 + CLS = 257 positions); parameters: "
       "the vision tower's share of the 427.6 M total (the 123.1 M text tower left out, as an "
       "image embedding does not run it)",
       0},
  };
}

std::vector<PrecisionSpec> make_precisions() {
  const char* kDequant =
      "dequantisation overhead: an assumption (weight-only kernels: AWQ/GPTQ GEMV below, Marlin "
      "near the 4x/2x byte ratio at small batch), not a measurement";
  return {
      {"fp16", 2, 2, false, 0, 0, "2 bytes per weight and per KV element"},
      {"bf16", 2, 2, false, 0, 0, "2 bytes per weight and per KV element (as fp16)"},
      {"fp8", 1, 1, true, 0, 0.10,
       std::string("FP8 E4M3 weights and KV cache (e.g. nvidia/Llama-3.1-8B-Instruct-FP8: "
                   "kv_cache_quant_algo FP8), matmuls at the FP8 tensor-core rate; on GPUs without "
                   "FP8 (A10G, A100) weight-only FP8 (vLLM's Marlin path) at the FP16 rate, +10% "
                   "dequantisation; ") +
           kDequant},
      {"int8", 1, 2, false, 0.10, 0.10,
       std::string("8-bit weight-only (W8A16, GPTQ 8-bit), fp16 activations and KV, matmuls at "
                   "the FP16 rate, +10% dequantisation; ") +
           kDequant},
      {"int4", 0.5 + 2.5 / 128, 2, false, 0.25, 0.25,
       std::string("4-bit weight-only GPTQ/AWQ, group size 128 (an fp16 scale and a 4-bit zero "
                   "per group: 0.52 bytes per weight), fp16 activations and KV, matmuls at the "
                   "FP16 rate, +25% dequantisation; ") +
           kDequant},
  };
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

template <class Spec>
const Spec& find_in(const std::vector<Spec>& table, std::string_view name, const char* what) {
  const std::string key = lower(name);
  for (const Spec& s : table)
    if (lower(s.name) == key) return s;
  std::string known;
  for (const Spec& s : table) known += (known.empty() ? "" : ", ") + s.name;
  throw usage_error(fmt::format("sim: unknown {} '{}' (known: {})", what, name, known));
}

std::string gb(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

// A tp that divides the model's attention heads: 1, 2, 4 or 8 (one node).
void check_tp(const ModelSpec& m, int tp) {
  if ((tp == 1 || tp == 2 || tp == 4 || tp == 8) && m.heads % tp == 0) return;
  std::string ok;
  for (int n : {1, 2, 4, 8})
    if (m.heads % n == 0) ok += (ok.empty() ? "" : ", ") + std::to_string(n);
  throw usage_error(fmt::format(
      "sim: tp {} is not possible for {} ({} attention heads): use {} (GPUs of one node whose "
      "count divides the heads)",
      tp, m.name, m.heads, ok));
}

void set_gpu(SimConfig& c, const GpuSpec& g, const PrecisionSpec& p) {
  const bool fp8_native = p.fp8_compute && g.fp8_flops > 0;
  c.gpu.name = g.full_name;
  c.gpu.memory_bytes = g.memory_bytes;
  c.gpu.bandwidth_bytes_per_s = g.bandwidth_bytes_per_s;
  c.gpu.flops = fp8_native ? g.fp8_flops : g.fp16_flops;
  c.gpu.bandwidth_efficiency = g.bandwidth_efficiency;
  c.gpu.mfu = g.mfu;
  c.parallel.interconnect_bytes_per_s = g.interconnect_bytes_per_s;
  c.parallel.allreduce_latency_us = g.allreduce_latency_us;
  c.gpu.idle_power_w = g.idle_power_w;
  c.gpu.max_power_w = g.max_power_w;
  c.model.dequant_overhead =
      p.fp8_compute ? (fp8_native ? 0 : p.fp8_dequant_overhead) : p.dequant_overhead;
}

void set_model(SimConfig& c, const ModelSpec& m, const PrecisionSpec& p, int tp) {
  c.model.params = m.params;
  c.model.embedding_params = static_cast<double>(m.vocab) * m.hidden;
  c.model.num_layers = m.layers;
  c.model.hidden_size = m.hidden;
  c.model.head_dim = m.head_dim;
  c.model.kv_dim = m.kv_heads * m.head_dim;
  c.model.bytes_per_param = p.bytes_per_param;
  c.model.kv_bytes_per_elem = p.kv_bytes_per_elem;
  c.model.dtype = p.name;
  c.parallel.tp = tp;
  c.sched.max_total_tokens = m.context;  // the engine behaviour may lower it (TGI 1.x: 2048)
  c.sched.max_input_tokens = m.context - 1;
}

}  // namespace

const std::vector<GpuSpec>& catalog_gpus() {
  static const std::vector<GpuSpec> t = make_gpus();
  return t;
}

const std::vector<ModelSpec>& catalog_models() {
  static const std::vector<ModelSpec> t = make_models();
  return t;
}

const std::vector<PrecisionSpec>& catalog_precisions() {
  static const std::vector<PrecisionSpec> t = make_precisions();
  return t;
}

std::vector<std::string> catalog_engines() {
  return known_engines();
}

const GpuSpec& find_gpu(std::string_view name) {
  return find_in(catalog_gpus(), name, "GPU");
}

const ModelSpec& find_model(std::string_view name) {
  return find_in(catalog_models(), name, "model");
}

const PrecisionSpec& find_precision(std::string_view name) {
  return find_in(catalog_precisions(), name, "dtype");
}

SimChoice resolved(const SimChoice& ch) {
  SimChoice r;
  r.gpu = find_gpu(ch.gpu.empty() ? "A10G" : ch.gpu).name;
  r.model = find_model(ch.model.empty() ? "llama-2-7b" : ch.model).name;
  r.dtype = find_precision(ch.dtype.empty() ? "fp16" : ch.dtype).name;
  r.engine = canonical_engine(ch.engine.empty() ? "tgi-1.x" : ch.engine);
  r.tp = ch.tp;
  return r;
}

std::string label_of(const SimChoice& ch) {
  const SimChoice r = resolved(ch);
  return lower(fmt::format("{}-{}-{}-{}-tp{}", r.engine, r.gpu, r.model, r.dtype, r.tp));
}

MemoryFit memory_fit(const ModelSpec& m, const GpuSpec& g, const PrecisionSpec& p, int tp,
                     double reserve_bytes, int64_t min_kv_tokens) {
  SimConfig c;
  set_model(c, m, p, tp);
  MemoryFit f;
  f.weights_bytes = m.params * p.bytes_per_param;
  f.weights_per_gpu_bytes = f.weights_bytes / tp;
  f.kv_bytes_per_token = 2.0 * m.layers * m.kv_heads * m.head_dim * p.kv_bytes_per_elem;
  f.kv_bytes_per_token_per_gpu = kv_bytes_per_token_per_gpu(c);
  f.gpu_memory_bytes = g.memory_bytes;
  f.reserve_bytes = reserve_bytes;
  f.free_bytes = g.memory_bytes - reserve_bytes - f.weights_per_gpu_bytes;
  f.kv_capacity_tokens =
      f.free_bytes > 0 ? static_cast<int64_t>(f.free_bytes / f.kv_bytes_per_token_per_gpu) : 0;
  f.min_kv_tokens = min_kv_tokens;
  f.fits = f.free_bytes > 0 && f.kv_capacity_tokens >= min_kv_tokens;
  return f;
}

std::string fit_error(const ModelSpec& m, const GpuSpec& g, const PrecisionSpec& p, int tp,
                      const MemoryFit& f) {
  const std::string room = gb(f.gpu_memory_bytes - f.reserve_bytes);
  std::string msg = fmt::format(
      "sim: {} {} on {}x {} does not fit: weights {} / {} GPU{} = {} per GPU, KV {:.3f} MiB per "
      "token ({:.3f} MiB per GPU); GPU memory {} - reserve {} = {} for weights and KV: ",
      m.name, p.name, tp, g.name, gb(f.weights_bytes), tp, tp == 1 ? "" : "s",
      gb(f.weights_per_gpu_bytes), f.kv_bytes_per_token / kMiB, f.kv_bytes_per_token_per_gpu / kMiB,
      gb(f.gpu_memory_bytes), gb(f.reserve_bytes), room);
  if (f.free_bytes <= 0)
    msg += fmt::format("the weights alone are {} more", gb(-f.free_bytes));
  else
    msg += fmt::format("{} left for KV = {} tokens, fewer than one {}-token sequence",
                       gb(f.free_bytes), f.kv_capacity_tokens, f.min_kv_tokens);
  std::vector<std::string> fixes;
  for (int n : {2, 4, 8})
    if (n > tp && m.heads % n == 0 &&
        memory_fit(m, g, p, n, f.reserve_bytes, f.min_kv_tokens).fits) {
      fixes.push_back(fmt::format("tp {}", n));
      break;
    }
  // The precision that fits on the fewest GPUs (at least `tp`).
  bool found = false;
  for (int n : {1, 2, 4, 8}) {
    if (n < tp || m.heads % n != 0) continue;
    for (const char* d : {"fp8", "int8", "int4"}) {
      const PrecisionSpec& q = find_precision(d);
      if (q.bytes_per_param >= p.bytes_per_param ||
          !memory_fit(m, g, q, n, f.reserve_bytes, f.min_kv_tokens).fits)
        continue;
      fixes.push_back(n == tp ? fmt::format("dtype {}", d)
                              : fmt::format("dtype {} with tp {}", d, n));
      found = true;
      break;
    }
    if (found) break;
  }
  if (fixes.empty()) return msg + "; no tp up to 8 or dtype makes it fit on this GPU";
  std::string fix;
  for (const auto& s : fixes) fix += (fix.empty() ? "" : " or ") + s;
  // Named for every way in: sim's flags, prof/sweep's, a providers.yaml `sim:` map.
  return msg + "; use " + fix +
         " (sim --tp/--dtype, prof and sweep --sim-tp/--sim-dtype, providers.yaml tp:/dtype:)";
}

SimConfig config_of(const SimChoice& choice) {
  const SimChoice r = resolved(choice);
  const GpuSpec& g = find_gpu(r.gpu);
  const ModelSpec& m = find_model(r.model);
  const PrecisionSpec& p = find_precision(r.dtype);
  check_tp(m, r.tp);
  SimConfig c;
  set_gpu(c, g, p);
  set_model(c, m, p, r.tp);
  apply_engine(r.engine, c);
  c.server.preset = label_of(r);
  const int64_t min_kv = std::min<int64_t>(kMinKvTokens, c.sched.max_total_tokens);
  const MemoryFit fit = memory_fit(m, g, p, r.tp, c.gpu.memory_reserve_bytes, min_kv);
  if (!fit.fits) throw usage_error(fit_error(m, g, p, r.tp, fit));
  // Like lowering vLLM's --max-model-len to what the KV cache holds.
  const int64_t kv_tokens =
      c.cost.kv_capacity_tokens > 0 ? c.cost.kv_capacity_tokens : CostModel(c).kv_capacity_tokens();
  if (c.sched.max_total_tokens > kv_tokens) {
    c.sched.max_total_tokens = static_cast<int>(kv_tokens / 16 * 16);
    c.sched.max_input_tokens = std::min(c.sched.max_input_tokens, c.sched.max_total_tokens - 1);
  }
  c.model.name = m.hf_id;
  return c;
}

}  // namespace sb::sim
