#pragma once
// Energy of a run (docs/metrics.md, "Energy and cost"): sampled power integrated over the
// measured window (first t_send .. last t_end of the measured requests), from whichever power
// source the run has: NVML, nvidia-smi, a DCGM exporter (gpu/power_w), or a DCGM-style gauge
// scraped from /metrics (DCGM_FI_DEV_POWER_USAGE: a DCGM exporter, or the simulator's power
// model, live or predicted). Pure functions: samples in, numbers out.
//
// integrate_power(), for one device's samples (t_ns on the run's clock, watts):
//   - non-finite values are dropped; the samples are sorted by time;
//   - the power curve is the samples joined by straight lines (trapezoid rule), cut at the
//     window's edges by linear interpolation between the samples either side;
//   - an uncovered edge (the first sample after the window's start, or the last before its
//     end) holds the nearest sample's value, when it is no longer than max_gap_ns; a longer
//     uncovered edge gives no figure;
//   - a gap (consecutive samples farther apart than max_gap_ns, inside the window) is
//     bridged by the straight line too, and counted: gaps, gap_s (the part of each such gap
//     inside the window). More than half the window in gaps gives no figure;
//   - fewer than 2 samples in [start - max_gap, end + max_gap], or an empty window, gives no
//     figure.
// "No figure" is energy_j == nullopt with `reason` saying why, in one sentence.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sb::metrics {

using PowerPoints = std::vector<std::pair<int64_t, double>>;  // (ns since run start, W)

struct PowerIntegral {
  std::optional<double> energy_j;
  std::string reason;   // why energy_j is nullopt ("" otherwise)
  int64_t samples = 0;  // samples used (inside the window, plus one either side)
  int64_t gaps = 0;     // gaps longer than max_gap inside the window
  double gap_s = 0;     // time inside the window covered by such gaps or held edges
};

PowerIntegral integrate_power(PowerPoints points, int64_t start_ns, int64_t end_ns,
                              int64_t max_gap_ns);

// The lowest sample at or before `before_ns` (the idle power seen before load); nullopt when
// no sample is that early.
std::optional<double> min_power_before(const PowerPoints& points, int64_t before_ns);

// One power series: a device (NVML, nvidia-smi, DCGM) or a scraped gauge.
struct PowerSeries {
  std::string name;  // "gpu/power_w{device=\"0\"}"
  PowerPoints points;
  // GPUs the series stands for: 1 for a measured device; a simulated replica's tensor-parallel
  // degree (its gauge is one GPU's, every GPU of the replica drawing the same).
  int gpus = 1;
};

struct EnergyInput {
  std::vector<PowerSeries> series;
  std::string source;  // where the series come from, in words ("nvml (1 device: NVIDIA A10G)")
  int64_t window_start_ns = 0, window_end_ns = 0;  // the measured window on the run's clock
  int64_t max_gap_ns = 0;                          // 2.5 telemetry intervals, typically
  // Idle power per GPU, and where it came from ("simulator", "--idle-power-w",
  // "measured before load"); nullopt: no idle-subtracted figures.
  std::optional<double> idle_power_w;
  std::string idle_source;
  // The window's output tokens (ok requests), ok requests and goodput (requests meeting the
  // SLOs; nullopt without an SLO).
  double output_tokens = 0;
  int64_t ok_requests = 0;
  std::optional<int64_t> good_requests;
  // A time-scaled simulator's factor S (wall = model × S): energy and rates are given in
  // model time (energy ÷ S over the same samples; power is unchanged). 1: real time.
  double time_scale = 1.0;
};

// Energy figures from a window's energy: per output token, per joule, goodput per watt.
struct EnergyFigures {
  double energy_j = 0;
  double mean_power_w = 0;                    // energy / window (all GPUs)
  std::optional<double> j_per_output_token;   // energy / output tokens
  std::optional<double> output_tokens_per_j;  // output tokens / energy
  std::optional<double> goodput_per_w;        // (good requests / s) / mean power = good / J
  std::optional<double> j_per_request;        // energy / ok requests
};

struct EnergySummary {
  bool available = false;
  std::string reason;  // when !available: the first series' reason, or "no power series"
  std::string source;
  int series = 0, gpus = 0;  // series integrated; GPUs they stand for
  int64_t samples = 0, gaps = 0;
  double gap_s = 0;
  double window_s = 0;             // model time for a time-scaled simulator
  std::string time_base = "wall";  // "wall" | "model" (time_scale != 1)
  EnergyFigures total;
  std::optional<double> idle_power_w;  // per GPU
  std::string idle_source;
  std::optional<EnergyFigures> above_idle;  // energy - idle × GPUs × window, at least 0
};

// The run's energy: every series integrated over the window and summed (weighted by gpus).
// Any series without a figure makes the whole unavailable, with that series' reason.
EnergySummary energy_of(const EnergyInput& in);

// The figures of `energy_j` over `window_s` with these counts (nullopt where a count is 0).
EnergyFigures energy_figures(double energy_j, double window_s, double output_tokens,
                             int64_t ok_requests, std::optional<int64_t> good_requests);

}  // namespace sb::metrics
