// Fuzz target: the HTTP/1.1 response path (status line, headers, chunked or
// sized or close-delimited body) through Beast's http::response_parser with a
// buffer_body, driven as src/net/connection.cc drives it: raw bytes read into a
// 16 KiB buffer (compacted; full = header_limit), header first (eager(false)),
// then the body through a caller buffer (eager(true), need_buffer ignored; a chunked
// body's data through the on_chunk_body callback, viewed in the read buffer),
// put_eof() at the end of the "socket". Input: a header of control bytes that
// picks the read sizes, the body buffer size and the body limit, then the bytes
// the server sends. Checked: no crash, progress on every step (no hang), at most
// body_limit body bytes handed out.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  // Control bytes: [n_reads][read size]*n_reads [body buffer] [body limit], then the response.
  const size_t n_reads = 1 + data[0] % 4;
  if (size < 1 + n_reads + 2) return 0;
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

  // connection.cc Impl::ChunkPieces: a chunk's data viewed in the read buffer, one piece a put.
  struct ChunkPieces {
    std::string_view piece;
    size_t operator()(std::uint64_t, std::string_view data, error_code& ec) {
      if (data.empty()) return 0;
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
      if (ec && ec != http::error::need_more) return 0;  // a bad response: the connection fails
      if (parser.is_header_done()) break;
    }
    if (!r.read_some(ec)) return 0;  // eof or header too large before the header ended
  }
  (void)parser.get().result_int();
  (void)parser.get().find(http::field::content_type);

  // Body (connection.cc read_body(), called until is_done()).
  std::vector<char> body(body_buffer_bytes);
  uint64_t body_bytes = 0;
  while (!parser.is_done()) {
    auto& b = parser.get().body();
    b.data = body.data();
    b.size = body.size();
    parser.eager(true);
    for (;;) {
      FUZZ_CHECK(++steps < max_steps);
      error_code ec;
      if (r.end > r.begin) {
        r.begin += parser.put(boost::asio::buffer(r.buffer.get() + r.begin, r.end - r.begin), ec);
        if (ec == http::error::need_buffer) ec = {};
        if (ec && ec != http::error::need_more) return 0;
      }
      size_t got = body.size() - b.size;
      if (!chunk_pieces.piece.empty()) {
        FUZZ_CHECK(got == 0);  // a chunked body writes nothing to the body buffer
        got = std::exchange(chunk_pieces.piece, {}).size();
      }
      if (got > 0 || parser.is_done()) {
        body_bytes += got;
        FUZZ_CHECK(body_bytes <= body_limit);
        FUZZ_CHECK(body_bytes <= input_bytes);
        break;
      }
      if (!r.read_some(ec)) {
        if (ec == boost::asio::error::eof) {
          error_code eof_ec;
          parser.put_eof(eof_ec);
          if (!eof_ec && parser.is_done()) break;
        }
        return 0;  // cut short, or the buffer filled without progress
      }
    }
  }
  (void)parser.keep_alive();
  return 0;
}
