#pragma once
// Moved to results/request_jsonl.h (the output contract, src/results); this header keeps the
// report:: names for callers not yet switched.
#include "results/request_jsonl.h"

namespace sb::report {
using results::append_request_jsonl;
using results::parse_request_jsonl;
}  // namespace sb::report
