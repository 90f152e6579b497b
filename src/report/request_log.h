#pragma once
// Moved to results/request_log.h (the output contract, src/results); this header keeps the
// report:: names for callers not yet switched.
#include "results/request_log.h"

namespace sb::report {
using results::RequestLog;
}  // namespace sb::report
