#pragma once
// Incremental Server-Sent Events parser (WHATWG HTML §9.2 "event stream
// interpretation", as docs/architecture.md summarises it). Pure: bytes in, events out.
//
// Contract:
// - feed() may be given the stream split at any byte; the events produced are
//   the same as for the unsplit stream. One call may produce many events.
// - Lines end with CR, LF or CRLF (a CR at the end of one chunk followed by LF
//   at the start of the next is one line end).
// - "data:" with or without one leading space; several data lines join with '\n';
//   "event:", "id:", "retry:" fields; lines starting with ':' are comments;
//   an event is dispatched at a blank line, and only if it had a data field.
// - Event views passed to the callback are valid only during the callback.
// - No allocation per event in the common case: internal buffers are reused,
//   and an event whose single data line lies whole in the fed chunk is handed
//   out as a view into that chunk without copying.
// - "id:" keeps SSE's last-event-ID semantics: Event::id is the last id seen,
//   also for later events without an id field (an id containing NUL is ignored).
// - Lines of another form (an unknown field name, e.g. a JSON error body sent
//   without SSE framing) are ignored and counted in non_sse_lines().
// - A stream cut before the blank line that ends an event loses that event
//   (as in WHATWG); has_partial() then reports it. A UTF-8 BOM is not stripped.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sb::sse {

struct Event {
  std::string_view type;  // "event:" field; empty means "message"
  std::string_view data;  // data lines joined with '\n'
  std::string_view id;    // "id:" field (empty if none)
};

enum class FeedResult {
  ok,
  event_too_large,  // an event (or a line) exceeded max_event_bytes; the parser is unusable after
};

class Parser {
 public:
  explicit Parser(std::size_t max_event_bytes = std::size_t{1} << 20);

  // Parses `bytes`, calling on_event(const Event&) for every completed event.
  template <typename OnEvent>
  FeedResult feed(std::string_view bytes, OnEvent&& on_event);

  // True when bytes of an unfinished event (or line) are buffered: at end of
  // stream this means the stream was cut mid-event.
  bool has_partial() const;
  // Events dispatched so far, and lines seen that were not valid SSE fields
  // (used to detect a non-SSE body on a streaming endpoint).
  uint64_t events() const { return events_; }
  uint64_t non_sse_lines() const { return non_sse_lines_; }
  std::size_t max_event_bytes() const { return max_event_bytes_; }
  // Starts a new stream; buffers grown past common/buffer_trim.h's bound are released.
  void reset();
  // Capacity of the line and data buffers now.
  std::size_t buffer_capacity_bytes() const { return line_buf_.capacity() + data_buf_.capacity(); }

 private:
  // Where the current event's data lives: nowhere yet, a view into the chunk
  // being fed (fast path: one data line, whole in the chunk), or data_buf_.
  enum class DataState : unsigned char { none, view, buffer };
  enum class LineKind : unsigned char { field, blank };

  // Handles one complete line (without its line end). `in_chunk` is true when
  // the line is a view into the caller's chunk (it may be kept as a view until
  // the end of feed()), false when it lives in line_buf_. Returns blank for an
  // empty line, which the caller turns into a dispatch.
  LineKind on_line(std::string_view line, bool in_chunk);
  void on_field(std::string_view name, std::string_view value);  // every field but the fast path
  void append_data(std::string_view value);
  // Copies views into the current chunk into owned buffers (end of feed()).
  void own_views();
  // Dispatch at a blank line: returns true (and fills `out`) when the event had data.
  bool take_event(Event& out);
  FeedResult fail();

  // What an event touches first, together (the client reads 1,000 streams: each cache line
  // an event touches is a miss of its own); the buffers of events split across reads after.
  std::size_t max_event_bytes_;
  std::string_view data_view_;
  std::size_t event_bytes_ = 0;  // bytes of the current event's lines so far
  uint64_t events_ = 0;
  DataState data_state_ = DataState::none;
  bool has_type_ = false;
  bool pending_cr_ = false;  // the last chunk ended with CR: skip one LF at the next start
  bool failed_ = false;      // event_too_large was returned
  std::string line_buf_;     // bytes of a line not yet ended by CR/LF
  std::string last_id_;      // last "id:" value (SSE last-event-ID: persists across events)
  std::string data_buf_;     // data lines joined with '\n' (when not a view)
  std::string type_buf_;     // "event:" value of the current event
  uint64_t non_sse_lines_ = 0;
};

}  // namespace sb::sse

#include "sse/parser_impl.h"
