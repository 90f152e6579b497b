#pragma once
// The client-health verdict of every run (docs/metrics.md, "Client health"): was the client,
// not the server, the bottleneck? A run is client_limited when any of these held:
//   - loop:    more than 5% of the workers' 10-ms loop ticks fired over 5 ms late
//              (engine/loop_lag.h): the event loops were too busy to keep time;
//   - read:    the p90 over requests of the longest wait of received bytes in the kernel
//              before the client read them is over 5 ms (net/rx_timestamp.h's stamps);
//   - cpu:     the client's median CPU was above 90% of a core per worker (telemetry's
//              client_bottleneck; unknown when host sampling was off);
//   - sends:   open loop without an in-flight cap, over 5% of the sends left more than 1 ms
//              after their intended time (load.late_sends).
// Token times stay true under a slow client (kernel stamps, intended send times); what a
// limited client changes is how much load the server really received. report and compare
// show the verdict; prof --strict-client exits non-zero on it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::metrics {

// The engine's loop-lag probes, merged (engine/loop_lag.h); ticks == 0: not measured.
struct ClientLoopInfo {
  int workers = 0;
  int64_t ticks = 0;
  int64_t late_ticks = 0;  // over 5 ms late (engine/loop_lag.h kLateThreshold)
  double max_lag_ms = 0;
};

struct ClientHealth {
  bool client_limited = false;
  std::vector<std::string> reasons;  // one sentence per criterion that held, with its figures
  ClientLoopInfo loop;
  std::optional<double> late_tick_share;  // late_ticks / ticks
  std::optional<double> read_lag_p90_ms;
  std::optional<bool> cpu_bottleneck;     // unknown without host telemetry
  std::optional<double> late_send_share;  // open loop without a cap only
};

struct RunInfo;
struct RunSummary;
ClientHealth assess_client(const RunSummary& s, const RunInfo& info);

nlohmann::json client_health_json(const ClientHealth& h);

}  // namespace sb::metrics
