#pragma once
// The telemetry side channel (docs/architecture.md): samplers for the GPU, each server /metrics URL
// and the host, each on its own thread (never on the load engine's event loops), ticking at
// run_start + k * interval of TelemetryConfig::time_source (the steady clock by default; a
// ManualTimeSource in tests). Samples are stamped in ns since run start on that clock, like
// RequestRecord. A tick taken more than one interval late skips the ticks missed meanwhile
// (the next is back on the grid). With
// stream_to(), every sample is appended to telemetry.jsonl after its tick (telemetry_jsonl.h).
// Nothing here is fatal: a source that cannot start is reported in one line, a failed sample
// is counted with its reason.
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/time_source.h"
#include "telemetry/gpu_mode.h"
#include "telemetry/gpu_source.h"
#include "telemetry/series_store.h"
#include "telemetry/server_scrape.h"
#include "telemetry/telemetry_jsonl.h"

namespace sb::telemetry {

struct TelemetryConfig {
  Nanos interval = std::chrono::seconds(1);
  GpuMode gpu = GpuMode::automatic;  // automatic: NVML when it loads, else off (one line)
  std::string gpu_url;               // GpuMode::dcgm: the exporter's /metrics URL
  std::string nvml_library;          // empty: $SERVEBENCH_NVML_LIBRARY, else libnvidia-ml.so.1
  std::vector<std::string> server_urls;
  pid_t server_pid = 0;    // 0: none
  bool host = true;        // sample this process's CPU and RSS
  int client_workers = 1;  // the load engine's threads, for the client-bottleneck warning
  ScrapeOptions scrape;
  // The samplers' clock: ticks, stamps and the host's CPU% interval. Null: the steady clock
  // (the engine's run_start is on it). Not owned; outlives the Telemetry.
  const TimeSource* time_source = nullptr;
};

// parse_gpu_mode (gpu_mode.h) into config.gpu and config.gpu_url.
void parse_gpu_mode(const std::string& text, TelemetryConfig& config);

// summary.json's `telemetry` block of a run whose samples are in `store`: {interval_ms,
// sources, series, histograms, warnings, client_bottleneck}. Telemetry::to_json and predicted
// runs (whose samples are rendered in virtual time) both write it.
nlohmann::json telemetry_block(Nanos interval, nlohmann::json sources, const SeriesStore& store,
                               bool client_bottleneck, const std::vector<std::string>& warnings);

class Telemetry {
 public:
  explicit Telemetry(TelemetryConfig config);
  ~Telemetry();
  Telemetry(const Telemetry&) = delete;
  Telemetry& operator=(const Telemetry&) = delete;

  // Opens the GPU source; returns the lines to show the user (at most one per source that
  // is off, e.g. "GPU telemetry off: cannot load libnvidia-ml.so.1 (...)").
  std::vector<std::string> open();
  // Every sample is appended to `stream` after its sampler's tick (call before start()).
  void stream_to(std::unique_ptr<JsonlStream> stream);
  // The stream of stream_to(); null without one. Closed by stop().
  const JsonlStream* stream() const { return stream_.get(); }
  // Starts the sampler threads; samples are stamped relative to run_start (an instant of
  // the config's time source).
  void start(TimePoint run_start);
  // Stops and joins every sampler (prompt: waits at most one in-flight scrape), then closes
  // the stream.
  void stop();

  // Called on the GPU sampler's thread with each sample (feeds the live endpoint's gauges).
  void on_gpu(std::function<void(const std::vector<GpuReading>&)> listener);

  const SeriesStore& store() const { return store_; }
  bool gpu_on() const { return gpu_ != nullptr; }
  // summary.json's `telemetry`: {interval_ms, sources: [...], series: [...], histograms:
  // [...], warnings: [...], client_bottleneck}.
  nlohmann::json to_json() const;
  bool write_jsonl(const std::string& path) const { return store_.write_jsonl(path); }

 private:
  struct SourceCounts {
    std::string kind, detail;
    int64_t ok = 0, failed = 0;
    std::string last_error;
  };
  void loop(Sleeper& sleeper, const std::function<void(int64_t t_ns)>& tick);
  void spawn(std::function<void(int64_t t_ns)> tick);  // one sampler thread
  void start_host();
  std::vector<std::string> warnings() const;

  TelemetryConfig config_;
  SeriesStore store_;
  std::unique_ptr<GpuSource> gpu_;
  std::string gpu_off_reason_;
  std::vector<std::unique_ptr<ServerScrape>> scrapes_;
  SourceCounts gpu_counts_, host_counts_;
  std::function<void(const std::vector<GpuReading>&)> gpu_listener_;
  std::unique_ptr<JsonlStream> stream_;
  TimePoint run_start_;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Sleeper>> sleepers_;  // sleepers_[i]: threads_[i]'s wait
  std::vector<std::thread> threads_;
};

}  // namespace sb::telemetry
