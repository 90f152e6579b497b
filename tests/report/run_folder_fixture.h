#pragma once
// Run folders written from hand-built records, for the report/compare tests (no simulator).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "metrics/run_summary.h"
#include "results/request_jsonl.h"
#include "results/run_outputs.h"

namespace sb::report::testing {

inline std::filesystem::path temp_folder(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("servebench-report-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline void write_run(const std::filesystem::path& dir,
                      const std::vector<metrics::RequestRecord>& records,
                      const metrics::RunInfo& info) {
  std::filesystem::create_directories(dir);
  results::write_run_outputs(dir.string(), metrics::summarize_run(records, info), info);
  std::string jsonl;
  for (const auto& r : records) results::append_request_jsonl(jsonl, r);
  std::ofstream(dir / "requests.jsonl", std::ios::binary) << jsonl;
}

// n closed-loop requests, `slots` in flight, each with `tokens` output tokens; the TTFT and the
// per-token gap are drawn (seeded) around ttft_ms and gap_ms (+-20%), all times x scale.
inline std::vector<metrics::RequestRecord> synthetic_records(int n, uint64_t seed, double scale,
                                                             int slots = 4, double ttft_ms = 20,
                                                             double gap_ms = 5, int tokens = 16) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  std::vector<metrics::RequestRecord> v;
  std::vector<double> free_at(static_cast<size_t>(slots), 0.0);
  for (int i = 0; i < n; ++i) {
    auto slot = std::min_element(free_at.begin(), free_at.end());
    const double send = *slot;
    metrics::RequestRecord r;
    r.id = static_cast<uint64_t>(i);
    r.t_sched_ns = r.t_send_ns = static_cast<int64_t>(send * 1e6);
    double t = send + ttft_ms * scale * jitter(rng);
    r.t_first_ns = r.t_first_content_ns = static_cast<int64_t>(t * 1e6);
    for (int k = 1; k < tokens; ++k) {
      const double g = gap_ms * scale * jitter(rng);
      r.itl_ms.push_back(static_cast<float>(g));
      t += g;
    }
    r.t_last_ns = r.t_end_ns = static_cast<int64_t>(t * 1e6);
    r.output_tokens = tokens;
    r.input_tokens = 32;
    r.events = static_cast<uint32_t>(tokens);
    r.output_tokens_source = metrics::TokenSource::usage;
    v.push_back(r);
    *slot = t + 0.1;
  }
  return v;
}

inline metrics::RunInfo synthetic_info(int concurrency, const std::string& preset = "instant") {
  metrics::RunInfo i;
  i.tool_version = "0.1.0";
  i.config = {{"base_url", "http://127.0.0.1:9"},
              {"api", "tgi"},
              {"sim_preset", preset},
              {"load", {{"mode", "closed"}, {"concurrency", concurrency}}},
              {"workload", {{"input_tokens", 32}, {"output_tokens", 16}}}};
  i.host = {{"hostname", "test"}};
  i.started_at = "2026-12-02T13:00:00Z";
  i.duration_s = 1;
  i.load_mode = "closed";
  i.concurrency = concurrency;
  i.slo.ttft_ms = 100;
  i.bucket_interval_ms = 100;
  return i;
}

}  // namespace sb::report::testing
