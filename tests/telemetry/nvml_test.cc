// NVML through the real dlopen path, against the fake libnvidia-ml.so.1 built by CMake.
#include <dlfcn.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "common/manual_time_source.h"
#include "telemetry/telemetry.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;

struct ScopedEnv {
  ScopedEnv(const char* k, const char* v) : key(k) { setenv(k, v, 1); }
  ~ScopedEnv() { unsetenv(key); }
  const char* key;
};

int open_inits() {
  void* lib = dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return 0;  // unloaded: nothing can be left open
  auto fn = reinterpret_cast<int (*)()>(dlsym(lib, "fake_nvml_open_inits"));
  const int n = fn ? fn() : -1;
  dlclose(lib);
  return n;
}

TEST(Nvml, SampledSeriesMatchTheScriptedValues) {
  ScopedEnv devices("FAKE_NVML_DEVICES",
                    "Fake A10G,73,41,12884901888,25769803776,151250,64,1695;"
                    "Fake H100,5,2,1073741824,85899345920,70000,33,1980");
  TelemetryConfig c;
  c.interval = 50ms;
  c.gpu = GpuMode::nvml;
  c.nvml_library = FAKE_NVML_LIBRARY;
  c.host = false;
  ManualTimeSource clock;  // ticks at 0, 50, 100, 150 ms of it, without sleeping
  c.time_source = &clock;
  {
    Telemetry t(c);
    EXPECT_TRUE(t.open().empty());
    ASSERT_TRUE(t.gpu_on());
    std::vector<GpuReading> seen;
    t.on_gpu([&](const std::vector<GpuReading>& r) { seen = r; });
    t.start(clock.now());
    for (int k = 1; k <= 3; ++k) {
      ASSERT_TRUE(clock.wait_for_sleepers(1));
      clock.advance(50ms);
    }
    ASSERT_TRUE(clock.wait_for_sleepers(1));
    t.stop();
    const auto& s = t.store();
    const auto sm = s.points("gpu/sm_util_pct{device=\"0\"}");
    ASSERT_EQ(sm.size(), 4u);
    for (const auto& p : sm) EXPECT_EQ(p.second, 73);
    for (size_t k = 0; k < sm.size(); ++k)  // stamped on the run's clock
      EXPECT_EQ(sm[k].first, static_cast<int64_t>(k) * 50'000'000);
    EXPECT_EQ(s.stats("gpu/mem_util_pct{device=\"0\"}").max, 41);
    EXPECT_EQ(s.stats("gpu/mem_used_bytes{device=\"0\"}").p50, 12884901888.0);
    EXPECT_EQ(s.stats("gpu/mem_total_bytes{device=\"1\"}").mean, 85899345920.0);
    EXPECT_DOUBLE_EQ(s.stats("gpu/power_w{device=\"0\"}").mean, 151.25);
    EXPECT_EQ(s.stats("gpu/temperature_c{device=\"1\"}").max, 33);
    EXPECT_EQ(s.stats("gpu/sm_clock_mhz{device=\"1\"}").max, 1980);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].name, "Fake H100");
    const auto j = t.to_json();
    EXPECT_EQ(j["sources"][0]["detail"], "nvml (2 devices: Fake A10G, Fake H100)");
  }
  EXPECT_EQ(open_inits(), 0);  // nvmlShutdown balanced nvmlInit
}

TEST(Nvml, EnvironmentOverrideIsTheDlopenPath) {
  ScopedEnv devices("FAKE_NVML_DEVICES", "Env GPU,1,2,3,4,5000,6,7");
  ScopedEnv lib("SERVEBENCH_NVML_LIBRARY", FAKE_NVML_LIBRARY);
  std::string error;
  auto src = open_nvml("", error);
  ASSERT_TRUE(src) << error;
  std::vector<GpuReading> r;
  ASSERT_TRUE(src->sample(r, error));
  EXPECT_EQ(r.at(0).power_w, 5.0);
}

TEST(Nvml, MissingLibraryGivesOneLine) {
  TelemetryConfig c;
  c.gpu = GpuMode::automatic;
  c.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  Telemetry t(c);
  const auto lines = t.open();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("GPU telemetry off: cannot load /nonexistent/libnvidia-ml.so.1"))
      << lines[0];
  EXPECT_FALSE(t.gpu_on());
  EXPECT_EQ(t.to_json()["sources"][0]["on"], false);
}

TEST(Nvml, FailingInitGivesOneLine) {
  ScopedEnv rc("FAKE_NVML_INIT_RC", "9");
  TelemetryConfig c;
  c.gpu = GpuMode::nvml;
  c.nvml_library = FAKE_NVML_LIBRARY;
  Telemetry t(c);
  const auto lines = t.open();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "GPU telemetry off: nvmlInit failed (9: Driver Not Loaded)");
  EXPECT_EQ(open_inits(), 0);
}

TEST(NvidiaSmi, ParsesQueryLines) {
  GpuReading r;
  ASSERT_TRUE(parse_nvidia_smi_line("0, NVIDIA A10G, 73, 41, 12288, 23028, 151.25, 64, 1695", r));
  EXPECT_EQ(r.name, "NVIDIA A10G");
  EXPECT_EQ(r.mem_used_bytes, 12288.0 * 1048576);
  EXPECT_EQ(r.power_w, 151.25);
  ASSERT_TRUE(parse_nvidia_smi_line("1, X, [N/A], 0, 1, 2, [N/A], 30, 210", r));
  EXPECT_TRUE(std::isnan(r.sm_util_pct));
  EXPECT_FALSE(parse_nvidia_smi_line("garbage", r));
}

TEST(NvidiaSmi, ChildProcessLinesBecomeSeries) {
  const auto script =
      std::filesystem::temp_directory_path() / ("fake-nvidia-smi-" + std::to_string(getpid()));
  std::ofstream(script) << "#!/bin/sh\nwhile true; do echo '0, Fake, 55, 22, 100, 200, 80.5, 50, "
                           "1500'; sleep 0.05; done\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  ScopedEnv bin("SERVEBENCH_NVIDIA_SMI", script.c_str());
  TelemetryConfig c;
  c.interval = 50ms;
  c.gpu = GpuMode::nvidia_smi;
  c.host = false;
  {
    Telemetry t(c);
    EXPECT_TRUE(t.open().empty());
    t.start(Clock::now());
    std::this_thread::sleep_for(300ms);
    t.stop();
    EXPECT_EQ(t.store().stats("gpu/sm_util_pct{device=\"0\"}").max, 55);
  }
  std::filesystem::remove(script);
}

}  // namespace
}  // namespace sb::telemetry
