#pragma once
// The decoder of an HTTP/1.1 chunked body (RFC 9112 §7.1), run by the connection once Beast
// has parsed the response's header. A streamed event is one chunk, so this runs once an event:
// Beast's chunked parser (its put, chunk header parsing and an error_code made for need_more)
// cost about 430 instructions an event, this about 100 (issue 21, docs/performance.md).
//
// A byte-wise state machine: no line has to fit in a buffer, however the reads split the body,
// and a chunk's data goes out as views of the input, never copied. Strict where the framing
// is concerned (a hexadecimal size, optional whitespace only before an extension's ';', CRLF
// after the size line and after the data; anything else is bad_chunk), lenient where RFC 9112
// lets a recipient ignore what it does not use: chunk extensions (from their ';') and trailer
// fields are skipped, not validated (each size line and the
// trailer section at most kMaxLineBytes). The body limit is checked as Beast checks it: when a
// chunk's size line announces more than is left, before its data.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sb::net {

class ChunkedDecoder {
 public:
  enum class Status {
    more,        // every byte of the input consumed; the body goes on
    done,        // the body ended: the bytes after it are not consumed
    stopped,     // on_data said stop; the piece it was given is consumed
    bad_chunk,   // not chunked framing; the decoder stays failed
    body_limit,  // a chunk would take the body past its limit; the decoder stays failed
  };
  static constexpr uint32_t kMaxLineBytes = 8 * 1024;

  // A new body of at most body_limit decoded bytes.
  void reset(uint64_t body_limit) {
    state_ = State::size_first;
    remain_ = 0;
    limit_left_ = body_limit;
    line_bytes_ = 0;
  }
  bool done() const { return state_ == State::done; }

  // Decodes a prefix of `in`, `used` bytes of it: each piece of chunk data goes to
  // on_data(std::string_view piece), a view of `in`, which returns false to stop there.
  template <typename OnData>
  Status decode(std::string_view in, size_t& used, OnData&& on_data);

 private:
  enum class State : uint8_t {
    size_first,     // a chunk's size line: its first hexadecimal digit
    size,           // more digits, whitespace before an extension, an extension, or CR
    size_ws,        // whitespace after the size: more, or the ';' of an extension
    ext,            // an extension, skipped to CR
    size_lf,        // LF ending the size line
    data,           // remain_ bytes of data
    data_cr,        // CR after the data
    data_lf,        // LF after the data
    trailer_start,  // after the last chunk: CR (the end) or a trailer field
    trailer,        // a trailer field, skipped to CR
    trailer_lf,     // LF ending a trailer field
    last_lf,        // LF ending the body
    done,
    failed,
  };
  Status fail(Status why, size_t at, size_t& used) {
    state_ = State::failed;
    used = at;
    return why;
  }
  // Counts a byte of a size line or of the trailer section against kMaxLineBytes.
  bool line_byte() { return ++line_bytes_ <= kMaxLineBytes; }
  // A byte of a line skipped to its CR (an extension, a trailer field): CR moves to
  // `after_cr`. False (bad framing): an LF without CR, or a line past kMaxLineBytes.
  bool skip_byte(char c, State after_cr) {
    if (c == '\n' || !line_byte()) return false;
    if (c == '\r') state_ = after_cr;
    return true;
  }

  State state_ = State::size_first;
  uint64_t remain_ = 0;      // the size being read, then the data left of the chunk
  uint64_t limit_left_ = 0;  // decoded bytes the body may still hold
  uint32_t line_bytes_ = 0;
};

namespace detail {
// The value of a hexadecimal digit, or -1.
inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace detail

template <typename OnData>
ChunkedDecoder::Status ChunkedDecoder::decode(std::string_view in, size_t& used, OnData&& on_data) {
  const char* const begin = in.data();
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const char c = begin[i];
    switch (state_) {
      case State::size_first: {
        const int d = detail::hex_digit(c);
        if (d < 0) return fail(Status::bad_chunk, i, used);
        remain_ = static_cast<uint64_t>(d);
        line_bytes_ = 1;
        state_ = State::size;
        ++i;
        break;
      }
      case State::size: {
        const int d = detail::hex_digit(c);
        if (d >= 0) {
          if (remain_ > (UINT64_MAX >> 4)) return fail(Status::bad_chunk, i, used);
          remain_ = remain_ << 4 | static_cast<uint64_t>(d);
        } else if (c == '\r') {
          state_ = State::size_lf;
        } else if (c == ';') {
          state_ = State::ext;
        } else if (c == ' ' || c == '\t') {
          state_ = State::size_ws;
        } else {
          return fail(Status::bad_chunk, i, used);
        }
        if (!line_byte()) return fail(Status::bad_chunk, i, used);
        ++i;
        break;
      }
      case State::size_ws:  // RFC 9112: chunk-size [ BWS ";" ... ] CRLF
        if (c == ';') {
          state_ = State::ext;
        } else if (c != ' ' && c != '\t') {
          return fail(Status::bad_chunk, i, used);
        }
        if (!line_byte()) return fail(Status::bad_chunk, i, used);
        ++i;
        break;
      case State::ext:
        if (!skip_byte(c, State::size_lf)) return fail(Status::bad_chunk, i, used);
        ++i;
        break;
      case State::size_lf:
        if (c != '\n') return fail(Status::bad_chunk, i, used);
        ++i;
        if (remain_ == 0) {
          line_bytes_ = 0;
          state_ = State::trailer_start;
        } else {
          if (remain_ > limit_left_) return fail(Status::body_limit, i, used);
          limit_left_ -= remain_;
          state_ = State::data;
        }
        break;
      case State::data: {
        const size_t take = remain_ < n - i ? static_cast<size_t>(remain_) : n - i;
        const std::string_view piece(begin + i, take);
        i += take;
        remain_ -= take;
        if (remain_ == 0) state_ = State::data_cr;
        if (!on_data(piece)) {
          used = i;
          return Status::stopped;
        }
        break;
      }
      case State::data_cr:
        if (c != '\r') return fail(Status::bad_chunk, i, used);
        state_ = State::data_lf;
        ++i;
        break;
      case State::data_lf:
        if (c != '\n') return fail(Status::bad_chunk, i, used);
        state_ = State::size_first;
        ++i;
        break;
      case State::trailer_start:  // CR: the end; else a trailer field
        state_ = State::trailer;
        if (!skip_byte(c, State::last_lf)) return fail(Status::bad_chunk, i, used);
        ++i;
        break;
      case State::trailer:
        if (!skip_byte(c, State::trailer_lf)) return fail(Status::bad_chunk, i, used);
        ++i;
        break;
      case State::trailer_lf:
        if (c != '\n' || !line_byte()) return fail(Status::bad_chunk, i, used);
        state_ = State::trailer_start;
        ++i;
        break;
      case State::last_lf:
        if (c != '\n') return fail(Status::bad_chunk, i, used);
        state_ = State::done;
        used = i + 1;
        return Status::done;
      case State::done:
        used = i;
        return Status::done;
      case State::failed:
        used = i;
        return Status::bad_chunk;
    }
  }
  used = n;
  if (state_ == State::done) return Status::done;
  if (state_ == State::failed) return Status::bad_chunk;
  return Status::more;
}

}  // namespace sb::net
