#include "report/gpu_use.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sb::report {
namespace {

using nlohmann::json;

struct Pick {
  const char* gpu_name;   // the GPU sampler's series
  const char* dcgm_name;  // the DCGM exporter's
};
constexpr Pick kSm{"sm_util_pct", "DCGM_FI_DEV_GPU_UTIL"};
constexpr Pick kBw{"mem_util_pct", "DCGM_FI_DEV_MEM_COPY_UTIL"};
constexpr Pick kMem{"mem_used_bytes", "DCGM_FI_DEV_FB_USED"};

std::optional<double> num(const json& s, const char* key) {
  const auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The series of `pick`: the GPU sampler's when it has any, else the DCGM exporter's.
std::vector<const json*> series_of(const json& all, const Pick& pick) {
  std::vector<const json*> gpu, dcgm;
  for (const json& s : all) {
    if (!s.is_object() || num(s, "count").value_or(0) <= 0) continue;
    const std::string name = s.value("name", "");
    if (name == pick.gpu_name && s.value("source", "") == "gpu") gpu.push_back(&s);
    if (name == pick.dcgm_name) dcgm.push_back(&s);
  }
  return gpu.empty() ? dcgm : gpu;
}

struct Mean {
  std::optional<double> value;
  int64_t count = 0;
  std::vector<double> points;
};

Mean pooled_mean(const std::vector<const json*>& series) {
  Mean m;
  double sum = 0;
  for (const json* s : series) {
    const auto mean = num(*s, "mean");
    const auto count = num(*s, "count");
    if (!mean || !count) continue;
    sum += *mean * *count;
    m.count += static_cast<int64_t>(*count);
    if (const auto p = s->find("points"); p != s->end() && p->is_array())
      for (const json& pt : *p)
        if (pt.is_array() && pt.size() == 2 && pt[1].is_number()) m.points.push_back(pt[1]);
  }
  if (m.count > 0) m.value = sum / static_cast<double>(m.count);
  return m;
}

}  // namespace

GpuUse gpu_use_of(const json& summary) {
  GpuUse g;
  if (!summary.is_object() || !summary.contains("telemetry")) return g;
  const json& tel = summary["telemetry"];
  if (!tel.is_object() || !tel.contains("series") || !tel["series"].is_array()) return g;
  const json& all = tel["series"];
  for (const json* s : series_of(all, kMem)) {
    const auto max = num(*s, "max");
    if (!max) continue;
    const double mib = s->value("name", "") == kMem.gpu_name ? *max / 1048576.0 : *max;
    g.mem_used_peak_mib = std::max(g.mem_used_peak_mib.value_or(mib), mib);
  }
  Mean sm = pooled_mean(series_of(all, kSm));
  Mean bw = pooled_mean(series_of(all, kBw));
  g.sm_util_mean_pct = sm.value;
  g.mem_bw_util_mean_pct = bw.value;
  g.samples = std::max(sm.count, bw.count);
  g.sm_util_points = std::move(sm.points);
  g.mem_bw_util_points = std::move(bw.points);
  return g;
}

}  // namespace sb::report
