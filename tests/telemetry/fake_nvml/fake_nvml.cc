// A fake libnvidia-ml.so.1 for the telemetry tests: exports the NVML functions servebench
// uses and returns scripted values, read at nvmlInit from the environment:
//   FAKE_NVML_INIT_RC=N      nvmlInit_v2 returns N (default 0 = success)
//   FAKE_NVML_DEVICES="name,sm%,mem%,used_bytes,total_bytes,power_mW,temp_C,sm_MHz;..."
//   FAKE_NVML_POWER_RAMP="t0_ns,p0_mW,slope_mW_per_s": every device's power is then
//     p0 + slope x (now - t0), now and t0 on CLOCK_MONOTONIC (steady_clock's epoch), so a test
//     knows the power curve and its integral (tests/telemetry/energy_nvml_test.cc)
// Every value is static storage: nothing to leak under ASan.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

struct Device {
  char name[64];
  unsigned sm, mem;
  unsigned long long used, total;
  unsigned power_mw, temp, clock;
};
Device g_devices[8];
unsigned g_count = 0;
int g_init_calls = 0;
bool g_ramp = false;
long long g_ramp_t0_ns = 0;
double g_ramp_p0_mw = 0, g_ramp_slope_mw_per_s = 0;

void load_script() {
  g_count = 0;
  const char* ramp = std::getenv("FAKE_NVML_POWER_RAMP");
  g_ramp = ramp && std::sscanf(ramp, "%lld,%lf,%lf", &g_ramp_t0_ns, &g_ramp_p0_mw,
                               &g_ramp_slope_mw_per_s) == 3;
  const char* s = std::getenv("FAKE_NVML_DEVICES");
  while (s && *s && g_count < 8) {
    Device& d = g_devices[g_count];
    int used = 0;
    if (std::sscanf(s, "%63[^,],%u,%u,%llu,%llu,%u,%u,%u%n", d.name, &d.sm, &d.mem, &d.used,
                    &d.total, &d.power_mw, &d.temp, &d.clock, &used) != 8)
      break;
    ++g_count;
    s += used;
    if (*s == ';') ++s;
  }
}

Device* dev(void* handle) {
  return static_cast<Device*>(handle);
}

}  // namespace

extern "C" {

struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};

__attribute__((visibility("default"))) int nvmlInit_v2() {
  const char* rc = std::getenv("FAKE_NVML_INIT_RC");
  if (rc && std::atoi(rc) != 0) return std::atoi(rc);
  ++g_init_calls;
  load_script();
  return 0;
}
__attribute__((visibility("default"))) int nvmlShutdown() {
  if (g_init_calls == 0) return 1;  // NVML_ERROR_UNINITIALIZED
  --g_init_calls;
  return 0;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(int rc) {
  return rc == 9 ? "Driver Not Loaded" : rc == 0 ? "Success" : "Unknown Error";
}
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = g_count;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** h) {
  if (i >= g_count) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *h = &g_devices[i];
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetName(void* h, char* name,
                                                             unsigned int len) {
  std::snprintf(name, len, "%s", dev(h)->name);
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetUtilizationRates(void* h,
                                                                         nvmlUtilization_t* u) {
  u->gpu = dev(h)->sm;
  u->memory = dev(h)->mem;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(void* h, nvmlMemory_t* m) {
  m->total = dev(h)->total;
  m->used = dev(h)->used;
  m->free = dev(h)->total - dev(h)->used;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPowerUsage(void* h, unsigned int* mw) {
  *mw = dev(h)->power_mw;
  if (g_ramp) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const double now_ns = static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
    const double p = g_ramp_p0_mw + g_ramp_slope_mw_per_s * (now_ns - g_ramp_t0_ns) / 1e9;
    *mw = p > 0 ? static_cast<unsigned>(p + 0.5) : 0;
  }
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetTemperature(void* h, int, unsigned int* t) {
  *t = dev(h)->temp;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetClockInfo(void* h, int, unsigned int* mhz) {
  *mhz = dev(h)->clock;
  return 0;
}
// How many nvmlInit calls are not yet balanced by nvmlShutdown (tests check 0 at the end).
__attribute__((visibility("default"))) int fake_nvml_open_inits() {
  return g_init_calls;
}

}  // extern "C"
