// Energy from NVML (issue 18's must-show): the fake libnvidia-ml.so.1 scripts a power ramp
// on steady_clock's epoch, the real dlopen path samples it, telemetry.jsonl holds the points
// and metrics/energy.h integrates them: the result equals the analytic integral within 1%.
// Then the whole binary: prof against a simulator with NVML telemetry (constant power) writes
// summary.json energy = power x measured window.
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../support/temp_dir.h"
#include "../support/text_file.h"
#include "metrics/energy.h"
#include "sim/config.h"
#include "sim/server.h"
#include "telemetry/power_log.h"
#include "telemetry/telemetry.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;

struct ScopedEnv {
  ScopedEnv(const char* k, const std::string& v) : key(k) { setenv(k, v.c_str(), 1); }
  ~ScopedEnv() { unsetenv(key); }
  const char* key;
};

std::filesystem::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("energy-" + name);
}

TEST(EnergyNvml, ScriptedRampEqualsTheAnalyticIntegral) {
  const TimePoint run_start = Clock::now();
  const auto t0_ns = std::chrono::duration_cast<Nanos>(run_start.time_since_epoch()).count();
  // P(t) = 100 W + 50 W/s x t on the run's clock, on two devices.
  ScopedEnv devices("FAKE_NVML_DEVICES", "Fake A,0,0,1,2,1,30,1000;Fake B,0,0,1,2,1,30,1000");
  ScopedEnv ramp("FAKE_NVML_POWER_RAMP", fmt::format("{},100000,50000", t0_ns));
  TelemetryConfig c;
  c.interval = 20ms;
  c.gpu = GpuMode::nvml;
  c.nvml_library = FAKE_NVML_LIBRARY;
  c.host = false;
  const auto dir = temp_dir("ramp");
  {
    Telemetry t(c);
    ASSERT_TRUE(t.open().empty());
    t.start(run_start);
    std::this_thread::sleep_until(run_start + 700ms);
    t.stop();
    ASSERT_TRUE(t.store().write_jsonl((dir / "telemetry.jsonl").string()));
  }
  const PowerLog log = read_power_log((dir / "telemetry.jsonl").string());
  ASSERT_EQ(log.gpu.size(), 2u);
  EXPECT_TRUE(log.gauge.empty());
  metrics::EnergyInput in;
  in.series = log.gpu;
  in.window_start_ns = 100'000'000;
  in.window_end_ns = 600'000'000;
  in.max_gap_ns = 50'000'000;
  in.output_tokens = 1000;
  const metrics::EnergySummary e = metrics::energy_of(in);
  ASSERT_TRUE(e.available) << e.reason;
  // Per device: 100 x 0.5 + 25 x (0.6^2 - 0.1^2) = 58.75 J.
  const double analytic = 2 * (100 * 0.5 + 25 * (0.36 - 0.01));
  EXPECT_NEAR(e.total.energy_j, analytic, analytic * 0.01);
  std::printf("energy %.4f J from %lld samples, analytic %.4f J (%+.3f%%)\n", e.total.energy_j,
              static_cast<long long>(e.samples), analytic,
              (e.total.energy_j - analytic) / analytic * 100);
  EXPECT_NEAR(*e.total.j_per_output_token, analytic / 1000, analytic / 1000 * 0.01);
  EXPECT_EQ(e.gpus, 2);
  EXPECT_GE(e.samples, 2 * 20);  // ~25 samples per device in the window at 20 ms
  std::filesystem::remove_all(dir);
}

TEST(EnergyNvml, ProfWritesPowerTimesTheMeasuredWindow) {
  sim::Server server(sim::preset_config("instant"));
  server.start();
  // 150.25 W per device, constant: energy = 150.25 W x window.
  ScopedEnv devices("FAKE_NVML_DEVICES", "Fake A10G,50,20,100,200,150250,60,1500");
  ScopedEnv lib("SERVEBENCH_NVML_LIBRARY", FAKE_NVML_LIBRARY);
  const auto dir = temp_dir("prof");
  const auto r = sb::testing::run_servebench(fmt::format(
      "prof --base-url {} --api tgi --concurrency 2 --duration 1s --output-length 8 "
      "--gpu-telemetry nvml --telemetry-interval 50 --cost-per-hour 3.6 --hardware '1x A10G' "
      "--precision fp16 --idle-power-w 50 -q --no-progress -o {}/run",
      server.url(), dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto s = nlohmann::json::parse(sb::testing::slurp((dir / "run/summary.json").string()));
  const auto& e = s["energy"];
  ASSERT_TRUE(e["available"].get<bool>()) << e.dump();
  const double window_s = s["throughput"]["window_s"];
  EXPECT_NEAR(e["energy_j"].get<double>(), 150.25 * window_s, 150.25 * window_s * 0.01);
  EXPECT_NEAR(e["mean_power_w"].get<double>(), 150.25, 1.5);
  EXPECT_EQ(e["source"], "nvml (1 device: Fake A10G)");
  EXPECT_EQ(e["idle_source"], "idle_power_w");
  EXPECT_NEAR(e["above_idle"]["energy_j"].get<double>(), 100.25 * window_s,
              100.25 * window_s * 0.01);
  const double tokens = s["throughput"]["output_tokens_per_s"].get<double>() * window_s;
  EXPECT_NEAR(e["j_per_output_token"].get<double>() * tokens, e["energy_j"].get<double>(), 1e-6);
  // Cost: $3.60/h over the window.
  EXPECT_NEAR(s["cost"]["usd"].get<double>(), 3.6 * window_s / 3600, 1e-12);
  EXPECT_EQ(s["config"]["hardware"], "1x A10G");
  EXPECT_EQ(s["config"]["precision"], "fp16");
  EXPECT_EQ(s["config"]["gpus"], 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb::telemetry
