#pragma once
// Per-request server times sent as response headers. TGI's router answers a non-streamed
// request (/generate, and /v1/* with "stream": false) with x-validation-time, x-queue-time,
// x-inference-time, x-time-per-token and x-total-time, each in whole milliseconds
// (router/src/server.rs). Streamed responses carry none: their headers leave before the times
// are known (there, the run-level decomposition comes from tgi_request_*_duration on /metrics).
#include <functional>
#include <optional>
#include <string_view>

#include "common/server_times.h"

namespace sb::protocol {

// The value of a response header by lower-case name, "" when absent.
using HeaderLookup = std::function<std::string_view(std::string_view name)>;

// The times found; nullopt when none of the headers is present or none parses as a
// non-negative number of milliseconds. queue_ms = x-queue-time, inference_ms =
// x-inference-time, total_ms = x-total-time (validation + queue + inference).
std::optional<ServerTimes> tgi_timing_headers(const HeaderLookup& header);

}  // namespace sb::protocol
