#pragma once
// Incremental Server-Sent Events parser (WHATWG HTML §9.2 "event stream
// interpretation", as DESIGN.md §4 summarises it). Pure: bytes in, events out.
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
// - No allocation per event in the common case: internal buffers are reused.
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
  void reset();

 private:
  // (implementation state: buffers reused across events)
};

}  // namespace sb::sse

#include "sse/parser_impl.h"
