#include "sse/parser.h"

#include "common/buffer_trim.h"

namespace sb::sse {

Parser::Parser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

bool Parser::has_partial() const {
  return !line_buf_.empty() || data_state_ != DataState::none || has_type_;
}

void Parser::reset() {
  clear_and_trim(line_buf_);  // an event's memory is not kept for the next stream
  clear_and_trim(data_buf_);
  type_buf_.clear();
  last_id_.clear();
  data_view_ = {};
  event_bytes_ = 0;
  events_ = 0;
  non_sse_lines_ = 0;
  data_state_ = DataState::none;
  has_type_ = false;
  pending_cr_ = false;
  failed_ = false;
}

void Parser::append_data(std::string_view value) {
  switch (data_state_) {
    case DataState::none:
      data_buf_.assign(value);
      break;
    case DataState::view:
      data_buf_.assign(data_view_);
      data_buf_.push_back('\n');
      data_buf_.append(value);
      break;
    case DataState::buffer:
      data_buf_.push_back('\n');
      data_buf_.append(value);
      break;
  }
  data_state_ = DataState::buffer;
}

void Parser::on_field(std::string_view name, std::string_view value) {
  if (name == "data") {
    append_data(value);
  } else if (name == "event") {
    type_buf_.assign(value);
    has_type_ = true;
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (name == "retry") {
    // Reconnection time: meaningless to a benchmark client, but a valid field.
  } else {
    ++non_sse_lines_;
  }
}

void Parser::own_views() {
  if (data_state_ == DataState::view) {
    data_buf_.assign(data_view_);
    data_state_ = DataState::buffer;
  }
}

bool Parser::take_event(Event& out) {
  const DataState state = data_state_;
  const bool had_type = has_type_;
  data_state_ = DataState::none;
  has_type_ = false;
  event_bytes_ = 0;
  if (state == DataState::none) return false;  // no data field: nothing to dispatch
  out.data = state == DataState::view ? data_view_ : std::string_view(data_buf_);
  out.type = had_type ? std::string_view(type_buf_) : std::string_view();
  out.id = last_id_;
  ++events_;
  return true;
}

FeedResult Parser::fail() {
  failed_ = true;
  return FeedResult::event_too_large;
}

}  // namespace sb::sse
