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

// A keep-alive connection with the buffers its requests reuse.
struct Channel {
  Channel(asio::any_io_executor ex, const net::ClientContext& client, protocol::Adapter& adapter,
          bool stream, size_t max_event_bytes, bool keep_text)
      : connection(ex, client), recorder(adapter, stream, max_event_bytes, keep_text) {}
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
