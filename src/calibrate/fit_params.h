#pragma once
// The free parameters `servebench calibrate` fits, each a SimConfig field named by its sim
// flag (sim/params.h) with bounds and the transform the optimiser moves in:
//
//   bandwidth-efficiency   (0.01..1)      weight and KV reads of a decode step
//   mfu                    (0.01..1)      prefill (and chunked-step) compute
//   step-overhead-ms       (0..1000)      fixed cost of every decode step
//   prefill-overhead-ms    (0..1000)      fixed cost of every prefill
//   overhead-ms            (0..10000)     per request, before the queue
//   the prefill interference knob of the base's prefill mode:
//     separate (TGI 1.x): waiting-served-ratio (0..10): how many must wait before a prefill
//                         interrupts the running batch
//     chunked (vLLM):     max-num-batched-tokens (max-batch-size..65536): the step's token
//                         budget shared by decode tokens and prompt chunks
//     fused: none (a prefill always joins the step that admits it)
//
// The transform is log(x + shift) (shift 0 for the efficiencies, 0.1 ms for the overheads,
// 0.1 for the ratio), so the search is scale-free and an overhead may reach 0.
#include <string>
#include <vector>

#include "sim/config.h"

namespace sb::calibrate {

struct FitParam {
  std::string name;  // the sim flag / preset-file key
  double lo = 0, hi = 0;
  double shift = 0;      // u = log(x + shift)
  bool integer = false;  // rounded when set (max-num-batched-tokens)
  double (*get)(const sim::SimConfig&) = nullptr;
  void (*set)(sim::SimConfig&, double) = nullptr;
};

// The parameters fitted for `base` (its prefill mode picks the interference knob).
std::vector<FitParam> fit_params_for(const sim::SimConfig& base);

// Transform, clamped to the bounds.
double to_u(const FitParam& p, double x);
double from_u(const FitParam& p, double u);

}  // namespace sb::calibrate
