#pragma once
// Inline part of sse/parser.h: the template feed() and its per-line fast path.
// Included by sse/parser.h only.
#include <cstring>

namespace sb::sse {

namespace detail {

// Position of the first byte equal to c in [p, end), or end.
inline const char* find_byte(const char* p, const char* end, char c) {
  const void* hit = std::memchr(p, c, static_cast<std::size_t>(end - p));
  return hit ? static_cast<const char*>(hit) : end;
}

inline bool starts_with_data(std::string_view line) {
  return line.size() >= 5 && std::memcmp(line.data(), "data:", 5) == 0;
}

}  // namespace detail

inline Parser::LineKind Parser::on_line(std::string_view line, bool in_chunk) {
  if (line.empty()) return LineKind::blank;
  event_bytes_ += line.size() + 1;
  // Fast path: the first data line of an event, whole in the chunk, becomes a view.
  if (detail::starts_with_data(line)) {
    std::string_view value = line.substr(5);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (data_state_ == DataState::none && in_chunk) {
      data_view_ = value;
      data_state_ = DataState::view;
    } else {
      append_data(value);
    }
    return LineKind::field;
  }
  if (line.front() == ':') return LineKind::field;  // comment
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    on_field(line, {});
  } else {
    std::string_view value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    on_field(line.substr(0, colon), value);
  }
  return LineKind::field;
}

template <typename OnEvent>
FeedResult Parser::feed(std::string_view bytes, OnEvent&& on_event) {
  if (failed_) return FeedResult::event_too_large;
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  if (p == end) return FeedResult::ok;
  if (pending_cr_) {
    pending_cr_ = false;
    if (*p == '\n') ++p;  // CR at the end of the last chunk + LF here: one line end
  }
  Event event;
  // Next CR at or after p (end when none): searched once per CR, so the CR scan
  // costs one pass over the chunk however many lines it holds.
  const char* next_cr = detail::find_byte(p, end, '\r');
  while (p < end) {
    if (next_cr < p) next_cr = detail::find_byte(p, end, '\r');
    const char* lf = detail::find_byte(p, next_cr, '\n');
    const char* eol = lf < next_cr ? lf : next_cr;
    if (eol == end) break;  // no line end left: keep the tail
    std::string_view line(p, static_cast<std::size_t>(eol - p));
    p = eol + 1;
    if (*eol == '\r') {
      if (p == end) {
        pending_cr_ = true;
      } else if (*p == '\n') {
        ++p;
      }
    }
    bool in_chunk = true;
    if (!line_buf_.empty()) {  // the line began in an earlier chunk
      if (line_buf_.size() + line.size() > max_event_bytes_) return fail();
      line_buf_.append(line);
      line = line_buf_;
      in_chunk = false;
    } else if (line.size() > max_event_bytes_) {
      return fail();
    }
    const LineKind kind = on_line(line, in_chunk);
    if (!in_chunk) line_buf_.clear();  // on_line copied what it keeps
    if (kind == LineKind::blank) {
      if (take_event(event)) on_event(static_cast<const Event&>(event));
    } else if (event_bytes_ > max_event_bytes_) {
      return fail();
    }
  }
  if (p < end) {
    if (line_buf_.size() + static_cast<std::size_t>(end - p) > max_event_bytes_) return fail();
    line_buf_.append(p, static_cast<std::size_t>(end - p));
  }
  own_views();
  return FeedResult::ok;
}

}  // namespace sb::sse
