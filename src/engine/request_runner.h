#pragma once
// Sends one request on a connection and records its timeline (docs/metrics.md, §5).
#include <string>

#include "common/asio.h"
#include "config/engine_config.h"
#include "engine/response_recorder.h"
#include "metrics/request_record.h"
#include "net/connection.h"

namespace sb::engine {

// Per-worker constants for building requests.
struct RequestTemplate {
  std::string target;  // URL path
  std::string host_header;
  std::string extra_headers;  // "Name: value\r\n" lines incl. Authorization
  std::string_view accept;    // text/event-stream when streaming
  TimePoint run_start;
  Timeouts timeouts;
};

// Where the body of the response being read stands (run_request's; kept in the channel, beside
// the connection and the recorder that every piece of body touches too: at 1,000 streams each
// cache line a streamed event touches is a miss of its own, docs/performance.md).
struct BodyProgress {
  const RequestTemplate* tmpl = nullptr;
  bool ok_status = false;
  bool first_seen = false;  // when phase_deadline was set
  TimePoint total_deadline, first_deadline, phase_deadline;
};

// A keep-alive connection with the buffers its requests reuse.
struct Channel {
  Channel(asio::any_io_executor ex, const net::ClientContext& client, protocol::Adapter& adapter,
          bool stream, size_t max_event_bytes, bool keep_text)
      : connection(ex, client), recorder(adapter, stream, max_event_bytes, keep_text) {}
  BodyProgress body;
  net::Connection connection;
  ResponseRecorder recorder;
  std::string request_bytes;
  std::string headers;  // the request's extra header lines (scratch, kept for its capacity)
};

// Fills `record` (t_sched_ns already set by the caller) from sending `body`; `more_headers`
// ("Name: value\r\n" lines, e.g. the session header) go after the template's.
// Never throws for network or server faults: they become the record's error class.
awaitable<void> run_request(const RequestTemplate& tmpl, Channel& channel, std::string_view body,
                            metrics::RequestRecord& record, std::string_view more_headers = {});

inline int64_t ns_since(TimePoint start, TimePoint t) {
  return std::chrono::duration_cast<Nanos>(t - start).count();
}

}  // namespace sb::engine
