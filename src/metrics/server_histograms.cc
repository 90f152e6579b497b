#include "metrics/server_histograms.h"

#include <string_view>

namespace sb::metrics {
namespace {

// Sum and count of every histogram named `name`; nullopt when none counted a request.
std::optional<HistogramMean> mean_of(const nlohmann::json& histograms, std::string_view name) {
  double sum = 0, count = 0;
  for (const auto& h : histograms) {
    if (!h.is_object() || h.value("name", "") != name) continue;
    const auto c = h.find("count");
    const auto s = h.find("sum");
    if (c == h.end() || s == h.end() || !c->is_number() || !s->is_number()) continue;
    count += c->get<double>();
    sum += s->get<double>();
  }
  if (!(count > 0)) return std::nullopt;
  return HistogramMean{std::string(name), count, sum / count * 1e3};
}

}  // namespace

ServerHistograms server_histograms(const nlohmann::json& telemetry) {
  ServerHistograms out;
  if (!telemetry.is_object()) return out;
  const auto it = telemetry.find("histograms");
  if (it == telemetry.end() || !it->is_array()) return out;
  const nlohmann::json& h = *it;
  out.queue = mean_of(h, "vllm:request_queue_time_seconds");
  out.prefill = mean_of(h, "vllm:request_prefill_time_seconds");
  out.decode = mean_of(h, "vllm:request_decode_time_seconds");
  out.inference = mean_of(h, "vllm:request_inference_time_seconds");
  if (out.queue || out.prefill || out.decode || out.inference) {
    out.source = "vllm_metrics";
    return out;
  }
  out.queue = mean_of(h, "tgi_request_queue_duration");
  out.inference = mean_of(h, "tgi_request_inference_duration");
  if (out.queue || out.inference) out.source = "tgi_metrics";
  return out;
}

}  // namespace sb::metrics
