#include "telemetry/gpu_source.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "net/http_fetch.h"

extern char** environ;

namespace sb::telemetry {
namespace {

double field_value(std::string_view f) {
  while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
  while (!f.empty() && (f.back() == ' ' || f.back() == '\r')) f.remove_suffix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  return ec == std::errc() && p == f.data() + f.size() ? v : kNoValue;  // "[N/A]" -> NaN
}

// The child `nvidia-smi ... -lms N`: a reader thread keeps the latest line per device.
class NvidiaSmiSource final : public GpuSource {
 public:
  NvidiaSmiSource(pid_t pid, int fd) : pid_(pid), fd_(fd), reader_([this] { read_loop(); }) {}
  ~NvidiaSmiSource() override {
    kill(pid_, SIGTERM);
    reader_.join();  // the pipe closes when the child exits
    close(fd_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  bool sample(std::vector<GpuReading>& out, std::string& error) override {
    std::lock_guard lock(mu_);
    out.clear();
    for (const auto& [i, r] : latest_) out.push_back(r);
    if (out.empty()) error = ended_ ? "nvidia-smi exited" : "no line from nvidia-smi yet";
    return !out.empty();
  }
  std::string describe() const override { return "nvidia-smi"; }

 private:
  void read_loop() {
    std::string buf;
    char chunk[4096];
    for (;;) {
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, static_cast<size_t>(n));
      size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        GpuReading r;
        if (parse_nvidia_smi_line(std::string_view(buf).substr(0, nl), r)) {
          std::lock_guard lock(mu_);
          latest_[r.index] = r;
        }
        buf.erase(0, nl + 1);
      }
    }
    std::lock_guard lock(mu_);
    ended_ = true;
  }
  pid_t pid_;
  int fd_;
  std::mutex mu_;
  std::map<int, GpuReading> latest_;
  bool ended_ = false;
  std::thread reader_;
};

class DcgmSource final : public GpuSource {
 public:
  DcgmSource(std::string url, Nanos timeout) : url_(std::move(url)), timeout_(timeout) {}
  bool sample(std::vector<GpuReading>& out, std::string& error) override {
    net::HttpFetchOptions o;
    o.timeout = timeout_;
    const net::HttpFetchResult r = net::http_fetch(url_, o);
    if (!r.ok) {
      error = r.error;
      return false;
    }
    out = readings_from_dcgm(parse_prom_text(r.body));
    if (out.empty()) error = "no DCGM_FI_DEV_* samples on the page";
    return !out.empty();
  }
  std::string describe() const override { return "dcgm " + url_; }

 private:
  std::string url_;
  Nanos timeout_;
};

}  // namespace

bool parse_nvidia_smi_line(std::string_view line, GpuReading& r) {
  std::vector<std::string_view> f;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      f.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  if (f.size() != 9) return false;
  const double index = field_value(f[0]);
  if (std::isnan(index)) return false;
  r.index = static_cast<int>(index);
  std::string_view name = f[1];
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  r.name = std::string(name);
  r.sm_util_pct = field_value(f[2]);
  r.mem_util_pct = field_value(f[3]);
  r.mem_used_bytes = field_value(f[4]) * 1048576.0;  // MiB
  r.mem_total_bytes = field_value(f[5]) * 1048576.0;
  r.power_w = field_value(f[6]);
  r.temperature_c = field_value(f[7]);
  r.sm_clock_mhz = field_value(f[8]);
  return true;
}

std::unique_ptr<GpuSource> open_nvidia_smi(Nanos interval, std::string& error) {
  const char* env = std::getenv("SERVEBENCH_NVIDIA_SMI");
  const std::string bin = env && *env ? env : "nvidia-smi";
  const std::string lms = fmt::format(
      "-lms={}", std::max<int64_t>(
                     100, std::chrono::duration_cast<std::chrono::milliseconds>(interval).count()));
  std::string query =
      "--query-gpu=index,name,utilization.gpu,utilization.memory,memory.used,memory.total,"
      "power.draw,temperature.gpu,clocks.sm";
  std::string format = "--format=csv,noheader,nounits";
  std::vector<char*> argv = {const_cast<char*>(bin.c_str()), query.data(), format.data(),
                             const_cast<char*>(lms.c_str()), nullptr};
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    error = "cannot create a pipe for nvidia-smi";
    return nullptr;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    error = fmt::format("cannot run {} ({})", bin, std::strerror(rc));
    return nullptr;
  }
  return std::make_unique<NvidiaSmiSource>(pid, pipefd[0]);
}

std::unique_ptr<GpuSource> open_dcgm(const std::string& url, Nanos timeout) {
  return std::make_unique<DcgmSource>(url, timeout);
}

std::vector<GpuReading> readings_from_dcgm(const PromPage& page) {
  std::map<int, GpuReading> by_gpu;
  std::map<int, double> fb_free;
  for (const PromSample& s : page.samples) {
    if (!s.name.starts_with("DCGM_FI_DEV_")) continue;
    const double gpu = field_value(label(s.labels, "gpu"));
    if (std::isnan(gpu)) continue;
    GpuReading& r = by_gpu[static_cast<int>(gpu)];
    r.index = static_cast<int>(gpu);
    if (r.name.empty()) r.name = std::string(label(s.labels, "modelName"));
    const std::string_view f = std::string_view(s.name).substr(12);
    if (f == "GPU_UTIL")
      r.sm_util_pct = s.value;
    else if (f == "MEM_COPY_UTIL")
      r.mem_util_pct = s.value;
    else if (f == "FB_USED")
      r.mem_used_bytes = s.value * 1048576.0;
    else if (f == "FB_FREE")
      fb_free[r.index] = s.value * 1048576.0;
    else if (f == "POWER_USAGE")
      r.power_w = s.value;
    else if (f == "GPU_TEMP")
      r.temperature_c = s.value;
    else if (f == "SM_CLOCK")
      r.sm_clock_mhz = s.value;
  }
  std::vector<GpuReading> out;
  for (auto& [i, r] : by_gpu) {
    if (auto it = fb_free.find(i); it != fb_free.end() && !std::isnan(r.mem_used_bytes))
      r.mem_total_bytes = r.mem_used_bytes + it->second;
    out.push_back(r);
  }
  return out;
}

void record_gpu(const std::vector<GpuReading>& readings, int64_t t_ns, SeriesStore& store) {
  struct Field {
    const char* name;
    const char* report;
    const char* unit;
    double GpuReading::*value;
  };
  static constexpr Field kFields[] = {
      {"sm_util_pct", "SM util", "%", &GpuReading::sm_util_pct},
      {"mem_util_pct", "memory util", "%", &GpuReading::mem_util_pct},
      {"mem_used_bytes", "memory used", "bytes", &GpuReading::mem_used_bytes},
      {"mem_total_bytes", "memory total", "bytes", &GpuReading::mem_total_bytes},
      {"power_w", "power", "W", &GpuReading::power_w},
      {"temperature_c", "temperature", "C", &GpuReading::temperature_c},
      {"sm_clock_mhz", "SM clock", "MHz", &GpuReading::sm_clock_mhz},
  };
  for (const GpuReading& r : readings)
    for (const Field& f : kFields) {
      const double v = r.*f.value;
      if (std::isnan(v)) continue;
      store.add(SeriesMeta{"gpu",
                           f.name,
                           {{"device", std::to_string(r.index)}},
                           fmt::format("GPU {} {}", r.index, f.report),
                           f.unit,
                           "gauge"},
                t_ns, v);
    }
}

}  // namespace sb::telemetry
