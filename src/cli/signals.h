#pragma once
// SIGINT/SIGTERM/SIGHUP handling for long runs: the first of them asks the run to stop (stop
// issuing, wait for in-flight requests up to the grace period, write the results, exit 130);
// a closed terminal (SIGHUP) is a stop like SIGTERM. A second SIGINT exits 130 at once:
// requests.jsonl keeps every line flushed so far, and every launched server's process group
// (common/stop_request.h) is killed first, so none is left running.
#include <atomic>

namespace sb::cli {

// Installs the handlers; returns the flag they set (sb::process_stop_flag()). Call once per
// process.
const std::atomic<bool>& install_stop_handlers();

}  // namespace sb::cli
