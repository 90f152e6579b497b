#pragma once
// servebench's one error type for library code. Library code throws sb::Error;
// only main() turns it into a message and an exit code.
#include <stdexcept>
#include <string>

namespace sb {

enum class ExitCode : int {
  ok = 0,
  failure = 1,      // unexpected internal failure
  usage = 2,        // bad flag, value or config file: the message names the field and the fix
  unreachable = 3,  // the target could not be reached before any success
  error_rate = 4,   // error rate above --max-error-rate
  // 5 (`compare` regression) and 6 (`agree` below --fail-below) are those commands' own.
  // Writing the results failed (disk full, I/O error): requests.jsonl keeps every complete
  // line written before the failure, later records are counted as lost, and the run still
  // writes summary.json from what is on disk when it can; when summary.json itself cannot be
  // written the message names `servebench summarize DIR` (results/request_log.h).
  io_error = 7,
  // prof --strict-client: the run was measured and written, and its client-health verdict
  // says the client, not the server, was the bottleneck (metrics/client_health.h).
  client_limited = 8,
  // Stopped by SIGINT, SIGTERM or SIGHUP (cli/signals.h): after the first signal the run stops
  // issuing, finishes or cancels what is in flight, writes its results and exits 130; a
  // second SIGINT exits 130 at once from the handler, with only requests.jsonl's flushed lines
  // (launched servers are killed first).
  interrupted = 130,
};

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, ExitCode code = ExitCode::failure)
      : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// A bad flag/config value: exit code 2.
inline Error usage_error(std::string message) {
  return Error(std::move(message), ExitCode::usage);
}

}  // namespace sb
