#pragma once
// Moved to results/request_log_read.h (the output contract, src/results); this header keeps the
// report:: names for callers not yet switched.
#include "results/request_log_read.h"

namespace sb::report {
using results::read_back_run_records;
using results::read_request_log;
using results::RequestLogContents;
}  // namespace sb::report
