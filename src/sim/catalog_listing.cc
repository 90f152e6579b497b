// catalog_listing (sim/catalog.h): the catalog as text, for `servebench sim --list`.
#include <fmt/format.h>

#include "sim/catalog.h"

namespace sb::sim {

std::string catalog_listing() {
  std::string out =
      "GPUs (--gpu; bw/mfu: default efficiencies, replaced by the engine behaviour's own):\n";
  out += fmt::format("  {:<6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>18} {:>7}\n", "name", "memory",
                     "bandwidth", "FP16 TF/s", "FP8 TF/s", "bw/mfu", "TP link", "power");
  for (const GpuSpec& g : catalog_gpus()) {
    out += fmt::format(
        "  {:<6} {:>6.0f} MiB {:>5.0f} GB/s {:>10.0f} {:>9} {:>4.2f}/{:<4.2f} "
        "{:>8} {:>4.0f} GB/s {:>3.0f}-{:.0f} W\n",
        g.name, g.memory_bytes / 1048576.0, g.bandwidth_bytes_per_s / 1e9, g.fp16_flops / 1e12,
        g.fp8_flops > 0 ? fmt::format("{:.0f}", g.fp8_flops / 1e12) : "-", g.bandwidth_efficiency,
        g.mfu, g.interconnect, g.interconnect_bytes_per_s / 1e9, g.idle_power_w, g.max_power_w);
    out += fmt::format("         source: {}\n", g.source);
  }
  out += "\nModels (--model):\n";
  out += fmt::format("  {:<14} {:>7} {:>6} {:>6} {:>5} {:>8} {:>8} {:>7}  {}\n", "name", "params",
                     "layers", "hidden", "heads", "KV heads", "head dim", "context", "model id");
  for (const ModelSpec& m : catalog_models()) {
    out += fmt::format("  {:<14} {:>6.2f}B {:>6} {:>6} {:>5} {:>8} {:>8} {:>7}  {}\n", m.name,
                       m.params / 1e9, m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim,
                       m.context, m.hf_id);
    out += fmt::format("         source: {}\n", m.source);
  }
  out += "\nPrecisions (--dtype):\n";
  for (const PrecisionSpec& p : catalog_precisions())
    out += fmt::format("  {:<5} {:.3f} B/weight, KV {} B/element: {}\n", p.name, p.bytes_per_param,
                       p.kv_bytes_per_elem, p.source);
  out += "\nEngines (--engine): ";
  std::string engines;
  for (const auto& e : catalog_engines()) engines += (engines.empty() ? "" : ", ") + e;
  out += engines + " (sim/engine_behaviour.cc cites each behaviour's sources)\n";
  out += "\nTensor parallelism (--tp): 1, 2, 4 or 8 GPUs dividing the model's attention heads.\n";
  return out;
}

}  // namespace sb::sim
