// GPU readings through NVML, loaded with dlopen at run time. The few NVML types and
// function signatures used are declared here (from NVML's public nvml.h ABI), so the build
// needs no NVIDIA package.
#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

#include "telemetry/gpu_source.h"

namespace sb::telemetry {
namespace {

using nvmlReturn_t = int;  // NVML_SUCCESS = 0
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;         // NVML_CLOCK_SM

struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*count)(unsigned int*) = nullptr;
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;
};

class NvmlSource final : public GpuSource {
 public:
  NvmlSource(void* lib, NvmlApi api, std::string path)
      : lib_(lib), api_(api), path_(std::move(path)) {}
  ~NvmlSource() override {
    if (initialised_) api_.shutdown();
    dlclose(lib_);
  }

  bool init(std::string& error) {
    const nvmlReturn_t rc = api_.init();
    if (rc != 0) {
      error = fmt::format("nvmlInit failed ({}: {})", rc, describe_rc(rc));
      return false;
    }
    initialised_ = true;
    unsigned int n = 0;
    if (api_.count(&n) != 0) n = 0;
    for (unsigned int i = 0; i < n; ++i) {
      nvmlDevice_t d = nullptr;
      if (api_.handle(i, &d) != 0) continue;
      char name[96] = {};
      if (api_.name(d, name, sizeof name) != 0) name[0] = 0;
      devices_.push_back({static_cast<int>(i), d, name});
    }
    if (devices_.empty()) {
      error = "NVML found no GPU";
      return false;
    }
    return true;
  }

  bool sample(std::vector<GpuReading>& out, std::string& error) override {
    out.clear();
    for (const Device& d : devices_) {
      GpuReading r;
      r.index = d.index;
      r.name = d.name;
      nvmlUtilization_t u{};
      if (api_.utilization(d.handle, &u) == 0) r.sm_util_pct = u.gpu, r.mem_util_pct = u.memory;
      nvmlMemory_t m{};
      if (api_.memory(d.handle, &m) == 0)
        r.mem_used_bytes = static_cast<double>(m.used),
        r.mem_total_bytes = static_cast<double>(m.total);
      unsigned int v = 0;
      if (api_.power(d.handle, &v) == 0) r.power_w = v / 1000.0;  // milliwatts
      if (api_.temperature(d.handle, kTemperatureGpu, &v) == 0) r.temperature_c = v;
      if (api_.clock(d.handle, kClockSm, &v) == 0) r.sm_clock_mhz = v;
      out.push_back(std::move(r));
    }
    if (out.empty()) error = "no NVML device answered";
    return !out.empty();
  }

  std::string describe() const override {
    std::string names;
    for (const Device& d : devices_) names += (names.empty() ? "" : ", ") + d.name;
    return fmt::format("nvml ({} device{}: {})", devices_.size(), devices_.size() == 1 ? "" : "s",
                       names);
  }

 private:
  struct Device {
    int index;
    nvmlDevice_t handle;
    std::string name;
  };
  std::string describe_rc(nvmlReturn_t rc) const {
    const char* s = api_.error_string ? api_.error_string(rc) : nullptr;
    return s ? s : "unknown error";
  }
  void* lib_;
  NvmlApi api_;
  std::string path_;
  std::vector<Device> devices_;
  bool initialised_ = false;
};

template <typename F>
bool bind_symbol(void* lib, F& fn, const char* name, const char* fallback, std::string& missing) {
  void* p = dlsym(lib, name);
  if (!p && fallback) p = dlsym(lib, fallback);
  if (!p) {
    missing += (missing.empty() ? "" : ", ") + std::string(name);
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

}  // namespace

std::unique_ptr<GpuSource> open_nvml(const std::string& library, std::string& error) {
  std::string path = library;
  if (path.empty()) {
    const char* env = std::getenv("SERVEBENCH_NVML_LIBRARY");
    path = env && *env ? env : "libnvidia-ml.so.1";
  }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    error = fmt::format("cannot load {} ({})", path, why ? why : "not found");
    return nullptr;
  }
  NvmlApi api;
  std::string missing;
  bind_symbol(lib, api.init, "nvmlInit_v2", "nvmlInit", missing);
  bind_symbol(lib, api.shutdown, "nvmlShutdown", nullptr, missing);
  bind_symbol(lib, api.error_string, "nvmlErrorString", nullptr, missing);
  bind_symbol(lib, api.count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", missing);
  bind_symbol(lib, api.handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex",
              missing);
  bind_symbol(lib, api.name, "nvmlDeviceGetName", nullptr, missing);
  bind_symbol(lib, api.utilization, "nvmlDeviceGetUtilizationRates", nullptr, missing);
  bind_symbol(lib, api.memory, "nvmlDeviceGetMemoryInfo", nullptr, missing);
  bind_symbol(lib, api.power, "nvmlDeviceGetPowerUsage", nullptr, missing);
  bind_symbol(lib, api.temperature, "nvmlDeviceGetTemperature", nullptr, missing);
  bind_symbol(lib, api.clock, "nvmlDeviceGetClockInfo", nullptr, missing);
  if (!missing.empty()) {
    error = fmt::format("{} lacks {}", path, missing);
    dlclose(lib);
    return nullptr;
  }
  // The source owns the library from here: its destructor shuts NVML down (when
  // nvmlInit succeeded) and closes the library.
  auto src = std::make_unique<NvmlSource>(lib, api, path);
  if (!src->init(error)) return nullptr;
  return src;
}

}  // namespace sb::telemetry
