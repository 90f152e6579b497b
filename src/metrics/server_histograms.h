#pragma once
// The run-level server decomposition where a server reports no per-request times: the means of
// its request-phase histograms over the run (_sum / _count deltas between the run's first and
// last /metrics scrape, as src/telemetry keeps them in summary.json telemetry.histograms).
//   vLLM: vllm:request_queue_time_seconds, vllm:request_prefill_time_seconds,
//         vllm:request_decode_time_seconds, vllm:request_inference_time_seconds
//   TGI:  tgi_request_queue_duration, tgi_request_inference_duration
// Series of the same name with different labels (several models, several endpoints) add up.
#include <nlohmann/json.hpp>

#include "metrics/decomposition.h"

namespace sb::metrics {

// From summary.json's `telemetry` block (null or without histograms: source "").
// vLLM's names win when both are present.
ServerHistograms server_histograms(const nlohmann::json& telemetry);

}  // namespace sb::metrics
