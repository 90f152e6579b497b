#include "engine/request_runner.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error_clip.h"
#include "protocol/timing_headers.h"

namespace sb::engine {
namespace {

// Which client-side deadline a failed read hit: the earliest one, of the phase's (first token
// or idle), the whole request's, and before the first token the simulated user's
// (--abandon-after; TimePoint::max() when users never give up). Abandonment wins a tie.
ErrorClass timeout_class(TimePoint total_deadline, TimePoint phase_deadline, bool first_seen,
                         TimePoint abandon_deadline) {
  if (!first_seen && abandon_deadline <= phase_deadline) return ErrorClass::abandoned;
  if (total_deadline <= phase_deadline) return ErrorClass::timeout_total;
  return first_seen ? ErrorClass::timeout_idle : ErrorClass::timeout_first_token;
}

// When the request's simulated user gives up on a first token (--abandon-after): its intended
// send time (t_sched; the call's time when it has none) plus the wait. TimePoint::max() when
// users never give up. From t_sched rather than t_send because the user started waiting when
// the request was due: time queued in the client (--max-concurrency, a late send) is waiting too.
TimePoint abandon_deadline_of(const RequestTemplate& tmpl, const metrics::RequestRecord& r) {
  if (tmpl.timeouts.abandon_after <= Nanos::zero()) return TimePoint::max();
  const TimePoint due =
      r.t_sched_ns == metrics::kNoTime ? Clock::now() : tmpl.run_start + Nanos(r.t_sched_ns);
  return due + tmpl.timeouts.abandon_after;
}

std::string abandon_message(const RequestTemplate& tmpl, const metrics::RequestRecord& r,
                            std::string_view when) {
  std::string m = fmt::format(
      "abandoned {}: no first token {:g} s after the intended send time "
      "(--abandon-after)",
      when, to_s(tmpl.timeouts.abandon_after));
  if (r.t_sched_ns != metrics::kNoTime)
    m += fmt::format(
        ", {:.0f} ms since it",
        static_cast<double>(ns_since(tmpl.run_start, Clock::now()) - r.t_sched_ns) / 1e6);
  return m;
}

ErrorClass net_error_class(net::NetStatus s) {
  switch (s) {
    case net::NetStatus::ok:
      return ErrorClass::ok;
    case net::NetStatus::timeout:
      return ErrorClass::timeout_total;
    case net::NetStatus::connect_failed:
      return ErrorClass::connect_error;
    case net::NetStatus::reset:
      return ErrorClass::connection_reset;
    case net::NetStatus::closed:
      return ErrorClass::incomplete_stream;
    case net::NetStatus::too_large:
      return ErrorClass::response_too_large;
    case net::NetStatus::bad_response:
      return ErrorClass::malformed;
  }
  return ErrorClass::malformed;
}

void set_error(metrics::RequestRecord& r, ErrorClass c, std::string message) {
  if (r.error_class != ErrorClass::ok) return;
  r.error_class = c;
  r.error = clip_error(message);
}

// One response's body as it arrives: each piece recorded, and the deadline of the next read
// (the first token's, then the idle one from each piece on) kept up to date. The sink's context
// is the channel (its BodyProgress, connection and recorder).
struct BodyReader {
  // `now`: where the idle wait starts (from the sink: the last piece's arrival).
  static void next_deadline(Channel& c, TimePoint now) {
    auto& b = c.body;
    b.first_seen = c.recorder.first_text_seen();
    b.phase_deadline =
        b.first_seen ? std::min(b.total_deadline, now + b.tmpl->timeouts.idle) : b.first_deadline;
  }
  // False: the response should not be read further.
  static bool piece(Channel& c, std::string_view chunk, TimePoint arrived) {
    const int64_t now_ns = ns_since(c.body.tmpl->run_start, arrived);
    return c.body.ok_status ? c.recorder.on_body(chunk, now_ns) : c.recorder.on_error_body(chunk);
  }
  // The connection's body sink: the piece recorded and, to go on, the read's deadline moved.
  static bool take(void* self, std::string_view chunk, TimePoint arrived) {
    auto& c = *static_cast<Channel*>(self);
    if (!piece(c, chunk, arrived)) return false;
    next_deadline(c, arrived);
    c.connection.set_read_deadline(c.body.phase_deadline);
    return true;
  }
};

// The sink refers to the frame of run_request: it goes with it, however run_request ends.
struct SinkGuard {
  net::Connection& conn;
  ~SinkGuard() { conn.set_body_sink({}); }
};

}  // namespace

awaitable<void> run_request(const RequestTemplate& tmpl, Channel& channel, std::string_view body,
                            metrics::RequestRecord& record, std::string_view more_headers) {
  auto& conn = channel.connection;
  const auto& to = tmpl.timeouts;
  auto& phases = record.client;
  const auto since_ms = [](TimePoint from, TimePoint to_point) {
    return static_cast<float>(to_ms(to_point - from));
  };
  phases.pool_wait_ms =
      record.t_sched_ns == metrics::kNoTime
          ? -1.0f
          : static_cast<float>(
                static_cast<double>(ns_since(tmpl.run_start, Clock::now()) - record.t_sched_ns) /
                1e6);
  const TimePoint abandon_deadline = abandon_deadline_of(tmpl, record);
  if (Clock::now() >= abandon_deadline) {
    // The user gave up while the request waited in the client: it is never sent.
    record.t_end_ns = ns_since(tmpl.run_start, Clock::now());
    set_error(record, ErrorClass::abandoned, abandon_message(tmpl, record, "before it was sent"));
    co_return;
  }
  std::string& headers = channel.headers;
  headers.assign(tmpl.extra_headers);
  headers += "x-request-id: servebench-";
  const fmt::format_int id(record.id);
  headers.append(id.data(), id.size());
  headers += "\r\n";
  // --priority-mix: the class for gateways, and the number for servers without a body field
  // (the simulator's TGI endpoints read it; docs/workloads.md).
  if (!record.priority_class.empty())
    headers += fmt::format("x-priority: {}\r\nx-priority-value: {}\r\n", record.priority_class,
                           record.priority);
  headers += more_headers;
  net::serialize_request(channel.request_bytes,
                         net::RequestHead{.target = tmpl.target,
                                          .host_header = tmpl.host_header,
                                          .accept = tmpl.accept,
                                          .extra_headers = headers},
                         body);

  // A reused keep-alive connection may have been closed by the server while
  // idle; such a request is retried once on a fresh connection, and t_send is
  // taken again (the lost time shows in dispatch_delay, never in TTFT).
  for (int attempt = 0;; ++attempt) {
    const bool reused = conn.is_open();
    phases.reused = reused;
    phases.connect_ms = phases.tls_ms = -1;
    if (!conn.is_open()) {
      const TimePoint connect_deadline = std::min(Clock::now() + to.connect, abandon_deadline);
      auto r = co_await conn.connect(connect_deadline);
      if (conn.tcp_connect_time() >= Nanos{0})
        phases.connect_ms = static_cast<float>(to_ms(conn.tcp_connect_time()));
      if (conn.tls_handshake_time() >= Nanos{0})
        phases.tls_ms = static_cast<float>(to_ms(conn.tls_handshake_time()));
      if (!r.ok()) {
        record.t_end_ns = ns_since(tmpl.run_start, Clock::now());
        const bool abandoned =
            r.status == net::NetStatus::timeout && connect_deadline == abandon_deadline;
        set_error(record,
                  abandoned                             ? ErrorClass::abandoned
                  : r.status == net::NetStatus::timeout ? ErrorClass::timeout_connect
                                                        : ErrorClass::connect_error,
                  abandoned ? abandon_message(tmpl, record, "while connecting") : r.message);
        co_return;
      }
    }
    const TimePoint t_send = Clock::now();
    record.t_send_ns = ns_since(tmpl.run_start, t_send);
    const TimePoint total_deadline = t_send + to.total;
    const TimePoint first_deadline =
        std::min({total_deadline, t_send + to.first_token, abandon_deadline});
    auto w = co_await conn.write(channel.request_bytes, std::min(total_deadline, abandon_deadline));
    if (w.ok()) {
      phases.write_ms = since_ms(t_send, Clock::now());
      w = co_await conn.read_header(first_deadline);
    }
    if (!w.ok()) {
      if (reused && attempt == 0 &&
          (w.status == net::NetStatus::closed || w.status == net::NetStatus::reset))
        continue;
      record.t_end_ns = ns_since(tmpl.run_start, Clock::now());
      ErrorClass c = w.status == net::NetStatus::timeout
                         ? timeout_class(total_deadline, first_deadline, false, abandon_deadline)
                         : net_error_class(w.status);
      if (w.status == net::NetStatus::closed) c = ErrorClass::connection_reset;
      set_error(record, c,
                c == ErrorClass::abandoned ? abandon_message(tmpl, record, "before the response")
                                           : w.message);
      co_return;
    }

    phases.ttfb_ms = since_ms(t_send, conn.first_byte_at());
    phases.headers_ms = since_ms(t_send, conn.header_at());
    // TGI's x-*-time headers (non-streamed responses); body timings may add to them later.
    if (auto t =
            protocol::tgi_timing_headers([&](std::string_view name) { return conn.header(name); }))
      record.server.merge(*t);

    auto& rec = channel.recorder;
    rec.begin(record);
    const int status = conn.status();
    record.status = status;
    const bool ok_status = status >= 200 && status < 300;
    if (!ok_status) rec.on_error_status(status);

    // Each piece of body, from read_body() or from the connection's fast path (its sink, run by
    // the event loop while read_body() waits): recorded, and the read's deadline moved on.
    auto& progress = channel.body;
    progress = BodyProgress{.tmpl = &tmpl,
                            .ok_status = ok_status,
                            .total_deadline = total_deadline,
                            .first_deadline = first_deadline};
    const SinkGuard sink_guard{conn};
    conn.set_body_sink({&BodyReader::take, &channel});
    bool complete = true;
    while (!conn.body_done()) {
      BodyReader::next_deadline(channel, Clock::now());
      std::string_view chunk;
      TimePoint arrived;
      auto r = co_await conn.read_body(progress.phase_deadline, chunk, arrived);
      if (conn.sink_stopped()) {
        complete = false;
        conn.close();  // the rest of this response is not wanted
        break;
      }
      const bool keep_going = chunk.empty() || BodyReader::piece(channel, chunk, arrived);
      const bool first_seen = progress.first_seen;
      const TimePoint phase_deadline = progress.phase_deadline;
      if (!r.ok()) {
        complete = false;
        if (r.status == net::NetStatus::timeout) {
          const ErrorClass c =
              timeout_class(total_deadline, phase_deadline, first_seen, abandon_deadline);
          set_error(record, c,
                    c == ErrorClass::abandoned
                        ? abandon_message(tmpl, record, "waiting for the first token")
                        : fmt::format("no data for {:.0f} ms", to_ms(Clock::now() - t_send)));
        } else if (r.status == net::NetStatus::closed) {
          // Decided by finish(): a stream closed before its final event.
        } else {
          set_error(record, net_error_class(r.status), r.message);
        }
        break;
      }
      if (!keep_going) {
        complete = false;
        conn.close();  // the rest of this response is not wanted
        break;
      }
    }
    phases.read_lag_max_ms = static_cast<float>(to_ms(conn.max_read_lag()));
    rec.finish(ns_since(tmpl.run_start, Clock::now()), complete);
    if (!conn.keep_alive()) conn.close();
    co_return;
  }
}

}  // namespace sb::engine
