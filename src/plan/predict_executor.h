#pragma once
// `servebench predict prof|sweep|run ...`: the command as given, every measured run of it in
// virtual time (RunSpec::predict, src/predict) instead of against live simulators. Run
// folders, summaries, plan indexes and exit codes are those of the live command, marked
// `predicted: true`; times are model time (any --sim-time-scale is ignored).
#include "plan/run_executor.h"

namespace sb::plan {

class PredictExecutor : public RunExecutor {
 public:
  RunOutcome execute(const RunSpec& spec, const std::atomic<bool>* stop) override {
    RunSpec predicted = spec;
    predicted.predict = true;
    predicted.sim.time_scale = 1.0;
    predicted.print_progress = false;  // a predicted run takes (milli)seconds
    return execute_run(predicted, stop);
  }
  void check(const RunSpec& spec) const override { check_predictable(spec); }
  bool real_time() const override { return false; }
};

}  // namespace sb::plan
