#pragma once
// Moved to results/run_outputs.h (the output contract, src/results); this header keeps the
// report:: names for callers not yet switched.
#include "results/run_outputs.h"

namespace sb::report {
using results::write_file_atomically;
using results::write_run_outputs;
}  // namespace sb::report
