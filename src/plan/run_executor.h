#pragma once
// Where the measured runs of prof, sweep and run happen: the seam between the commands and
// plan_runner (which runs, in which order, what their results decide) and the process or
// processes that carry them out. main() chooses the executor at start-up. This class itself
// is the single-process executor: every run in this process (execute_run). Under mpirun,
// src/mpi/executor.h supplies one in which every rank walks the same command: each run is
// split over the ranks and merged on rank 0, and every rank is handed rank 0's outcome, so
// each decision taken from outcomes (saturation search, rate bisection, skipping a dead
// target) comes out the same on every rank without being sent.
//
// Contract for callers (prof, plan_runner, the sweep and run commands): outside these calls,
// do only what every process does alike, and leave files and output to the leader.
#include <atomic>
#include <functional>
#include <string>

#include "plan/execute_run.h"

namespace sb::plan {

class RunExecutor {
 public:
  virtual ~RunExecutor() = default;

  // Whether this process writes the plan's own files (index.json / index.csv, launch logs)
  // and prints its lines; false on the ranks that follow rank 0.
  virtual bool leader() const { return true; }

  // One run into spec.dir. `stop` is the plan's stop flag (see plan_stop).
  virtual RunOutcome execute(const RunSpec& spec, const std::atomic<bool>* stop) {
    return execute_run(spec, stop);
  }

  // Throws sb::Error (usage) when this executor cannot run `spec` (a plan asks, of each
  // provider's base run, before its first run); every run is runnable here.
  virtual void check(const RunSpec& spec) const { (void)spec; }

  // Whether runs take real time; false for predicted runs (predict_executor.h), between which
  // a plan's cool-down is skipped: no server is there to cool.
  virtual bool real_time() const { return true; }

  // Runs `f` on the leader only (starting a provider's server, choosing the output folder);
  // every process gets its result, or its sb::Error thrown.
  virtual std::string on_leader(const std::function<std::string()>& f) { return f(); }

  // The stop flag the plan checks between runs, given this process's signal flag: that flag
  // itself here; under mpirun one that every rank updates alike after each call above.
  virtual const std::atomic<bool>* plan_stop(const std::atomic<bool>* signal) { return signal; }

  // Runs a whole command (prof, sweep or run) and returns this process's exit code: here
  // `command()` itself, an sb::Error left to the caller; under mpirun with the command's end
  // agreed by every rank (a failure on one ends it on all).
  virtual int run_command(const std::function<int()>& command) { return command(); }
};

}  // namespace sb::plan
