#pragma once
// SIGINT/SIGTERM handling for long runs: the first signal asks the run to stop
// (stop issuing, wait for in-flight requests up to the grace period, write the
// results); a second SIGINT exits at once (requests.jsonl keeps every line
// flushed so far).
#include <atomic>

namespace sb::cli {

// Installs the handlers; returns the flag they set. Call once per process.
const std::atomic<bool>& install_stop_handlers();

}  // namespace sb::cli
