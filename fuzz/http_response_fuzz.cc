// Fuzz target: the HTTP/1.1 response path (status line, headers, chunked or
// sized or close-delimited body) through Beast's http::response_parser with a
// buffer_body, driven as src/net/connection.cc drives it: raw bytes read into a
// 16 KiB buffer (compacted; full = header_limit), header first (eager(false)),
// then the body through a caller buffer (eager(true), need_buffer ignored; a chunked
// body's data through the on_chunk_body callback, viewed in the read buffer),
// put_eof() at the end of the "socket". Input: a header of control bytes that
// picks the read sizes, the body buffer size and the body limit, then the bytes
// the server sends. Checked: no crash, progress on every step (no hang), at most
// body_limit body bytes handed out; and the body is parsed twice, its chunks handed
// out one piece a put (read_body) and all within one put (the fast path's sink,
// take_body_now), with the same bytes and the same outcome both ways.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// Beast without common/beast.h: its Asio wrapper needs coroutines, which clang-14
// does not get from Boost 1.74; the parser needs none of that.
#include <utility>  // before Boost (see common/asio.h)

#include <boost/asio/error.hpp>
#include <boost/beast/http.hpp>

#include "fuzz_check.h"

namespace {

namespace http = boost::beast::http;
using boost::system::error_code;

constexpr size_t kReadBufferBytes = 16 * 1024;  // as connection.cc

// The "socket": hands out the server bytes in reads of the chosen sizes.
struct Socket {
  std::string_view bytes;
  std::vector<size_t> read_sizes;
  size_t next = 0;
  size_t read(char* into, size_t capacity) {  // 0 = end of stream
    const size_t want = read_sizes[next++ % read_sizes.size()];
    const size_t n = std::min({want, capacity, bytes.size()});
    std::memcpy(into, bytes.data(), n);
    bytes.remove_prefix(n);
    return n;
  }
};

struct Reader {
  Socket socket;
  std::unique_ptr<char[]> buffer{new char[kReadBufferBytes]};
  size_t begin = 0, end = 0;
  // connection.cc Impl::read_some(): false with ec set on a full buffer or at eof.
  bool read_some(error_code& ec) {
    if (begin > 0 && begin == end) begin = end = 0;
    if (begin > 0 && end == kReadBufferBytes) {
      std::memmove(buffer.get(), buffer.get() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    if (end == kReadBufferBytes) {
      ec = http::error::header_limit;
      return false;
    }
    const size_t n = socket.read(buffer.get() + end, kReadBufferBytes - end);
    end += n;
    if (n == 0) ec = boost::asio::error::eof;
    return n > 0;
  }
};

// What one parse of the response gave: the body bytes handed out, and how it ended.
struct Outcome {
  std::string body;
  bool header_ok = false, done = false;
  bool operator==(const Outcome&) const = default;
};

// Parses the response that `data` describes (see below). to_sink: a chunk's pieces go out
// from within the put, which goes on (connection.cc take_body_now); else one piece a put.
Outcome parse(const uint8_t* data, size_t size, bool to_sink) {
  Outcome out;
  // Control bytes: [n_reads][read size]*n_reads [body buffer] [body limit], then the response.
  const size_t n_reads = 1 + data[0] % 4;
  Reader r;
  for (size_t i = 0; i < n_reads; ++i)
    r.socket.read_sizes.push_back(data[1 + i] == 0 ? kReadBufferBytes : data[1 + i]);
  const uint8_t body_control = data[1 + n_reads];
  const size_t body_buffer_bytes = body_control % 2 ? 16 * 1024 : 1 + body_control % 64;
  const uint8_t limit_control = data[2 + n_reads];
  const uint64_t body_limit = limit_control % 2 ? uint64_t{64} << 20 : limit_control * 8u;
  const size_t header = 3 + n_reads;
  r.socket.bytes = std::string_view(reinterpret_cast<const char*>(data + header), size - header);
  const size_t input_bytes = r.socket.bytes.size();
  size_t steps = 0;
  const size_t max_steps = 4 * input_bytes + 64;  // every step consumes or reads a byte

  // connection.cc Impl::ChunkPieces: a chunk's data viewed in the read buffer, one piece a
  // put, or (sink set) appended to the sink's string and the put goes on.
  struct ChunkPieces {
    std::string_view piece;
    std::string* sink = nullptr;
    size_t operator()(std::uint64_t, std::string_view data, error_code& ec) {
      if (data.empty()) return 0;
      if (sink) {
        sink->append(data);
        return data.size();
      }
      piece = data;
      ec = http::error::need_buffer;
      return data.size();
    }
  } chunk_pieces;
  http::response_parser<http::buffer_body> parser;
  parser.on_chunk_body(chunk_pieces);
  parser.eager(false);
  parser.body_limit(body_limit);
  // Header (connection.cc read_header()).
  for (;;) {
    FUZZ_CHECK(++steps < max_steps);
    error_code ec;
    if (r.end > r.begin) {
      r.begin += parser.put(boost::asio::buffer(r.buffer.get() + r.begin, r.end - r.begin), ec);
      // The error first: a Content-Length over body_limit fails with the header done.
      if (ec && ec != http::error::need_more) return out;  // a bad response: the connection fails
      if (parser.is_header_done()) break;
    }
    if (!r.read_some(ec)) return out;  // eof or header too large before the header ended
  }
  out.header_ok = true;
  (void)parser.get().result_int();
  (void)parser.get().find(http::field::content_type);

  // Body (connection.cc read_body(), called until is_done()).
  std::vector<char> body(body_buffer_bytes);
  while (!parser.is_done()) {
    auto& b = parser.get().body();
    b.data = body.data();
    b.size = body.size();
    parser.eager(true);
    for (;;) {
      FUZZ_CHECK(++steps < max_steps);
      error_code ec;
      const size_t sunk_before = out.body.size();
      if (r.end > r.begin) {
        chunk_pieces.sink = to_sink ? &out.body : nullptr;
        r.begin += parser.put(boost::asio::buffer(r.buffer.get() + r.begin, r.end - r.begin), ec);
        chunk_pieces.sink = nullptr;
        if (ec == http::error::need_buffer) ec = {};
        if (ec && ec != http::error::need_more) return out;
      }
      const size_t got = body.size() - b.size;
      out.body.append(body.data(), got);
      if (!chunk_pieces.piece.empty()) {
        FUZZ_CHECK(got == 0);  // a chunked body writes nothing to the body buffer
        out.body.append(std::exchange(chunk_pieces.piece, {}));
      }
      FUZZ_CHECK(out.body.size() <= body_limit);
      FUZZ_CHECK(out.body.size() <= input_bytes);
      if (out.body.size() > sunk_before || parser.is_done()) break;
      if (!r.read_some(ec)) {
        if (ec == boost::asio::error::eof) {
          error_code eof_ec;
          parser.put_eof(eof_ec);
          if (!eof_ec && parser.is_done()) break;
        }
        return out;  // cut short, or the buffer filled without progress
      }
    }
  }
  (void)parser.keep_alive();
  out.done = true;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const size_t n_reads = 1 + data[0] % 4;
  if (size < 1 + n_reads + 2) return 0;
  FUZZ_CHECK(parse(data, size, false) == parse(data, size, true));
  return 0;
}
