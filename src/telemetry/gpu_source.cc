#include "telemetry/gpu_source.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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

// Ends the child `pid` (the leader of its own process group): SIGTERM to the group, SIGKILL
// after `grace`, reaped. Gives up (a zombie left) if it is not reaped within a second of
// SIGKILL (a process stuck in the kernel): the end of the run is never held by it.
void end_child_group(pid_t pid, std::chrono::milliseconds grace) {
  auto reaped_within = [pid](std::chrono::milliseconds limit) {
    const auto until = Clock::now() + limit;
    int status = 0;
    do {
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno == ECHILD)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (Clock::now() < until);
    return false;
  };
  kill(-pid, SIGTERM);
  if (reaped_within(grace)) {
    kill(-pid, SIGKILL);  // what is left of the group (a script's children)
    return;
  }
  kill(-pid, SIGKILL);
  reaped_within(std::chrono::seconds(1));
}

// The child `nvidia-smi ... -lms N`: a reader thread keeps the latest line per device. It
// reads with a timeout: a child that writes nothing for `hang_after` is killed (its whole
// process group, SIGKILL) and reported; the readings stop. All of it on the steady clock.
class NvidiaSmiSource final : public GpuSource {
 public:
  NvidiaSmiSource(pid_t pid, int fd, Nanos hang_after)
      : pid_(pid), fd_(fd), hang_after_(hang_after), reader_([this] { read_loop(); }) {}
  ~NvidiaSmiSource() override {
    stop_ = true;
    reader_.join();  // it polls: back within 100 ms, whatever the child does
    close(fd_);
    end_child_group(pid_, std::chrono::milliseconds(500));
  }
  bool sample(std::vector<GpuReading>& out, std::string& error) override {
    std::lock_guard lock(mu_);
    out.clear();
    for (const auto& [i, r] : latest_) out.push_back(r);
    if (out.empty()) error = !ended_.empty() ? ended_ : "no line from nvidia-smi yet";
    return !out.empty();
  }
  std::string describe() const override { return "nvidia-smi"; }

 private:
  void read_loop() {
    std::string buf;
    char chunk[4096];
    TimePoint last_data = Clock::now();
    std::string why = "nvidia-smi exited";
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      const int ready = poll(&p, 1, 100);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        if (Clock::now() - last_data < hang_after_) continue;
        kill(-pid_, SIGKILL);
        why = fmt::format("nvidia-smi wrote nothing for {:.1f} s; killed", to_s(hang_after_));
        break;
      }
      const ssize_t n = ready < 0 ? -1 : read(fd_, chunk, sizeof chunk);
      if (n <= 0) break;
      last_data = Clock::now();
      buf.append(chunk, static_cast<size_t>(n));
      take_lines(buf);
    }
    std::lock_guard lock(mu_);
    if (!stop_) {
      latest_.clear();  // no stale readings once the child is gone
      ended_ = why;
    }
  }
  void take_lines(std::string& buf) {
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
  pid_t pid_;
  int fd_;
  Nanos hang_after_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::map<int, GpuReading> latest_;
  std::string ended_;  // why the readings stopped; empty while the child runs
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

std::unique_ptr<GpuSource> open_nvidia_smi(Nanos interval, std::string& error, Nanos hang_after) {
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
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: killed as one
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, bin.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    error = fmt::format("cannot run {} ({})", bin, std::strerror(rc));
    return nullptr;
  }
  if (hang_after <= Nanos::zero())
    hang_after = std::max<Nanos>(std::chrono::seconds(10), 10 * interval);
  return std::make_unique<NvidiaSmiSource>(pid, pipefd[0], hang_after);
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
