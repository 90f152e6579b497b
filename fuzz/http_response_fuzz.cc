// Fuzz target: the HTTP/1.1 response path (status line, headers, chunked or
// sized or close-delimited body) as src/net/connection.cc drives it: raw bytes read
// into a 16 KiB buffer (compacted; full = header_limit), the header through Beast's
// http::response_parser (eager(false)); a chunked body through our ChunkedDecoder
// (net/chunked_decoder.h), any other through Beast's parser and a caller buffer
// (eager(true), need_buffer ignored), put_eof() at the end of the "socket". Input:
// a header of control bytes that picks the read sizes, the body buffer size and the
// body limit, then the bytes the server sends. Checked: no crash, progress on every
// step (no hang), at most body_limit body bytes handed out; the body parsed twice,
// one piece a decode (read_body) and all pieces within one decode (the fast path's
// sink, take_body_now), with the same bytes and outcome both ways; and a chunked
// body against Beast's own chunked parser (the reference): what Beast completes, the
// decoder completes with the same bytes; what the decoder rejects, Beast does not
// complete (the decoder is no more lenient on framing; it skips extensions and
// trailers that Beast would validate, so Beast's body is then a prefix of ours).
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
#include "net/chunked_decoder.h"

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
  bool header_ok = false, done = false, chunked = false;
  bool operator==(const Outcome&) const = default;
};

struct Controls {
  std::vector<size_t> read_sizes;
  size_t body_buffer_bytes = 0;
  uint64_t body_limit = 0;
  std::string_view response;
};

// Control bytes: [n_reads][read size]*n_reads [body buffer] [body limit], then the response.
Controls controls_of(const uint8_t* data, size_t size) {
  Controls c;
  const size_t n_reads = 1 + data[0] % 4;
  for (size_t i = 0; i < n_reads; ++i)
    c.read_sizes.push_back(data[1 + i] == 0 ? kReadBufferBytes : data[1 + i]);
  const uint8_t body_control = data[1 + n_reads];
  c.body_buffer_bytes = body_control % 2 ? 16 * 1024 : 1 + body_control % 64;
  const uint8_t limit_control = data[2 + n_reads];
  c.body_limit = limit_control % 2 ? uint64_t{64} << 20 : limit_control * 8u;
  const size_t header = 3 + n_reads;
  c.response = std::string_view(reinterpret_cast<const char*>(data + header), size - header);
  return c;
}

// Parses the response as connection.cc does. to_sink: a chunked body's pieces all go out
// within one decode (take_body_now); else one piece a decode (read_body).
Outcome parse(const Controls& c, bool to_sink) {
  Outcome out;
  Reader r;
  r.socket.read_sizes = c.read_sizes;
  r.socket.bytes = c.response;
  const size_t input_bytes = c.response.size();
  size_t steps = 0;
  const size_t max_steps = 4 * input_bytes + 64;  // every step consumes or reads a byte

  http::response_parser<http::buffer_body> parser;
  parser.eager(false);
  parser.body_limit(c.body_limit);
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
  out.chunked = parser.chunked() && !parser.is_done();
  sb::net::ChunkedDecoder chunks;
  chunks.reset(c.body_limit);
  const auto complete = [&] { return out.chunked ? chunks.done() : parser.is_done(); };

  // Body (connection.cc read_body(), called until the body is complete).
  std::vector<char> body(c.body_buffer_bytes);
  while (!complete()) {
    auto& b = parser.get().body();
    if (!out.chunked) {
      b.data = body.data();
      b.size = body.size();
      parser.eager(true);
    }
    for (;;) {
      FUZZ_CHECK(++steps < max_steps);
      const size_t before = out.body.size();
      if (r.end > r.begin && out.chunked) {
        size_t used = 0;
        const auto status =
            chunks.decode(std::string_view(r.buffer.get() + r.begin, r.end - r.begin), used,
                          [&](std::string_view piece) {
                            FUZZ_CHECK(!piece.empty());
                            out.body.append(piece);
                            return to_sink;
                          });
        FUZZ_CHECK(used <= r.end - r.begin);
        r.begin += used;
        using Status = sb::net::ChunkedDecoder::Status;
        if (status == Status::bad_chunk || status == Status::body_limit) return out;
        FUZZ_CHECK((status == Status::stopped) == (!to_sink && out.body.size() > before));
      } else if (r.end > r.begin) {
        error_code ec;
        r.begin += parser.put(boost::asio::buffer(r.buffer.get() + r.begin, r.end - r.begin), ec);
        if (ec == http::error::need_buffer) ec = {};
        if (ec && ec != http::error::need_more) return out;
        const size_t got = body.size() - b.size;
        out.body.append(body.data(), got);
      }
      FUZZ_CHECK(out.body.size() <= c.body_limit);
      FUZZ_CHECK(out.body.size() <= input_bytes);
      if (out.body.size() > before || complete()) break;
      error_code ec;
      if (!r.read_some(ec)) {
        if (ec == boost::asio::error::eof && !out.chunked) {
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

// Beast's own decoding of the same response, eagerly, the whole input at once: the reference
// for a chunked body. `failure`: why it stopped short (none when it ran out of input).
Outcome parse_with_beast(const Controls& c, error_code& failure) {
  Outcome out;
  struct ChunkPieces {
    std::string* body;
    size_t operator()(std::uint64_t, std::string_view data, error_code&) {
      body->append(data);
      return data.size();
    }
  } pieces{&out.body};
  http::response_parser<http::buffer_body> parser;
  parser.on_chunk_body(pieces);
  parser.body_limit(c.body_limit);
  parser.eager(false);
  std::string_view in = c.response;
  error_code ec;
  in.remove_prefix(parser.put(boost::asio::buffer(in.data(), in.size()), ec));
  if (ec || !parser.is_header_done()) return out;
  out.header_ok = true;
  out.chunked = parser.chunked() && !parser.is_done();
  parser.eager(true);
  while (!parser.is_done() && !in.empty()) {
    const size_t used = parser.put(boost::asio::buffer(in.data(), in.size()), ec);
    in.remove_prefix(used);
    if (ec == http::error::need_buffer) ec = {};
    if (ec && ec != http::error::need_more) {
      failure = ec;
      return out;
    }
    if (used == 0) break;
  }
  out.done = parser.is_done();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const size_t n_reads = 1 + data[0] % 4;
  if (size < 1 + n_reads + 2) return 0;
  const Controls c = controls_of(data, size);
  const Outcome one_piece = parse(c, false);
  FUZZ_CHECK(one_piece == parse(c, true));
  if (!one_piece.chunked) return 0;
  error_code beast_failure;
  const Outcome beast = parse_with_beast(c, beast_failure);
  if (beast.done) FUZZ_CHECK(one_piece.done && one_piece.body == beast.body);
  if (!one_piece.done && one_piece.header_ok) {
    // Cut short by the input's end (Beast is not done either) or rejected (nor is Beast).
    FUZZ_CHECK(!beast.done);
  }
  if (one_piece.done && !beast.done) {
    // Beast rejected (or waits on, as with a NUL byte in an extension) an extension or a
    // trailer that the decoder skips: never the framing.
    FUZZ_CHECK(beast_failure != http::error::bad_chunk && beast_failure != http::error::body_limit);
    FUZZ_CHECK(one_piece.body.compare(0, beast.body.size(), beast.body) == 0);
  }
  return 0;
}
