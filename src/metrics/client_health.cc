#include "metrics/client_health.h"

#include <fmt/format.h>

#include "metrics/run_summary.h"

namespace sb::metrics {

namespace {
constexpr double kLateTickShare = 0.05;
constexpr double kReadLagP90Ms = 5.0;
constexpr double kLateSendShare = 0.05;
}  // namespace

ClientHealth assess_client(const RunSummary& s, const RunInfo& info) {
  ClientHealth h;
  h.loop = info.client_loop;
  if (h.loop.ticks > 0) {
    h.late_tick_share = static_cast<double>(h.loop.late_ticks) / static_cast<double>(h.loop.ticks);
    if (*h.late_tick_share > kLateTickShare)
      h.reasons.push_back(fmt::format(
          "the client's event loops ran late: {:.1f}% of their 10-ms ticks fired over 5 ms late "
          "(worst {:.1f} ms, {} worker{})",
          *h.late_tick_share * 100, h.loop.max_lag_ms, h.loop.workers,
          h.loop.workers == 1 ? "" : "s"));
  }
  const Distribution& lag = s.decomposition.read_lag_max_ms;
  if (lag.count > 0) {
    h.read_lag_p90_ms = lag.p90;
    if (lag.p90 > kReadLagP90Ms)
      h.reasons.push_back(fmt::format(
          "received bytes waited in the kernel before the client read them: p90 of each "
          "request's longest wait {:.2f} ms (over {:g} ms), n={}",
          lag.p90, kReadLagP90Ms, lag.count));
  }
  if (info.telemetry.is_object() && info.telemetry.contains("client_bottleneck")) {
    const auto& sources = info.telemetry.value("sources", nlohmann::json::array());
    bool host = false;
    for (const auto& src : sources) host = host || src.value("kind", "") == "host";
    if (host) {
      h.cpu_bottleneck = info.telemetry.value("client_bottleneck", false);
      if (*h.cpu_bottleneck)
        h.reasons.push_back(
            "the client's median CPU use was above 90% of a core per worker (telemetry)");
    }
  }
  if (s.load.mode == "open" && s.load.max_concurrency == 0) {
    const int64_t sent = s.metrics.dispatch_delay_ms.count;
    if (sent > 0) {
      h.late_send_share = static_cast<double>(s.load.late_sends) / static_cast<double>(sent);
      if (*h.late_send_share > kLateSendShare)
        h.reasons.push_back(fmt::format(
            "{:.1f}% of the open-loop sends ({} of {}) left over 1 ms after their intended time",
            *h.late_send_share * 100, s.load.late_sends, sent));
    }
  }
  h.client_limited = !h.reasons.empty();
  return h;
}

nlohmann::json client_health_json(const ClientHealth& h) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"client_limited", h.client_limited},
          {"reasons", h.reasons},
          {"loop",
           {{"workers", h.loop.workers},
            {"ticks", h.loop.ticks},
            {"late_ticks", h.loop.late_ticks},
            {"late_tick_share", opt(h.late_tick_share)},
            {"max_lag_ms", h.loop.ticks > 0 ? nlohmann::json(h.loop.max_lag_ms) : nullptr}}},
          {"read_lag_p90_ms", opt(h.read_lag_p90_ms)},
          {"cpu_bottleneck", opt(h.cpu_bottleneck)},
          {"late_send_share", opt(h.late_send_share)}};
}

}  // namespace sb::metrics
