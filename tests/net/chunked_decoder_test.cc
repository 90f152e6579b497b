#include "net/chunked_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sb::net {
namespace {

using Status = ChunkedDecoder::Status;

struct Decoded {
  std::string body;
  Status status = Status::more;
  size_t used = 0;  // of the whole input
};

// Feeds `wire` in the given pieces (split points), as reads would hand them over. one_piece:
// each decode stops at its first piece of data (read_body), else takes all (the sink).
Decoded decode_split(const std::string& wire, const std::vector<size_t>& splits, bool one_piece,
                     uint64_t limit = 1 << 20) {
  ChunkedDecoder d;
  d.reset(limit);
  Decoded out;
  size_t at = 0;
  std::vector<size_t> ends = splits;
  ends.push_back(wire.size());
  for (const size_t end : ends) {
    std::string_view in(wire.data() + at, end - at);
    for (;;) {
      size_t used = 0;
      out.status = d.decode(in, used, [&](std::string_view piece) {
        EXPECT_FALSE(piece.empty());
        out.body.append(piece);
        return !one_piece;
      });
      EXPECT_LE(used, in.size());
      at += used;
      in.remove_prefix(used);
      if (out.status != Status::stopped) break;
    }
    if (out.status != Status::more) break;
  }
  out.used = at;
  return out;
}

// Every split of `wire` in two and in three, both ways: the same body and outcome.
void expect_every_split(const std::string& wire, const std::string& body, Status status,
                        size_t used) {
  for (const bool one_piece : {false, true}) {
    for (size_t i = 0; i <= wire.size(); ++i) {
      for (size_t j = i; j <= wire.size(); j += (wire.size() > 40 ? 7 : 1)) {
        const Decoded got = decode_split(wire, {i, j}, one_piece);
        ASSERT_EQ(got.status, status) << "split " << i << "," << j << " of '" << wire << "'";
        ASSERT_EQ(got.body, body) << "split " << i << "," << j;
        ASSERT_EQ(got.used, used) << "split " << i << "," << j;
      }
    }
  }
}

TEST(ChunkedDecoder, DecodesEventsAtEverySplit) {
  const std::string wire =
      "d\r\ndata: hello\n\n\r\n"
      "E\r\ndata: world!\n\n\r\n"
      "0\r\n\r\n";
  expect_every_split(wire, "data: hello\n\ndata: world!\n\n", Status::done, wire.size());
}

TEST(ChunkedDecoder, LeavesTheBytesAfterTheBodyUnconsumed) {
  const std::string body = "3\r\nabc\r\n0\r\n\r\n";
  expect_every_split(body + "HTTP/1.1 200 OK\r\n", "abc", Status::done, body.size());
}

TEST(ChunkedDecoder, SkipsExtensionsAndTrailers) {
  const std::string wire =
      "00A;name=\"v;x\"\r\n0123456789\r\n"
      "1 \t ;ext\r\nZ\r\n"
      "0;last\r\nx-trailer: 1\r\nother: two\r\n\r\n";
  expect_every_split(wire, "0123456789Z", Status::done, wire.size());
}

TEST(ChunkedDecoder, AnUnfinishedBodyWantsMore) {
  const std::string wire = "5\r\nabc";
  expect_every_split(wire, "abc", Status::more, wire.size());
  expect_every_split("5\r\nabcde\r\n0\r\n", "abcde", Status::more, 13);
}

TEST(ChunkedDecoder, RejectsBadFraming) {
  struct Case {
    std::string wire;
    std::string body;  // handed out before the error
  };
  const std::vector<Case> cases = {
      {"x\r\n", ""},                  // not a hexadecimal size
      {"\r\n", ""},                   // no size
      {"3\nabc\r\n", ""},             // LF without CR after the size
      {"3\r\nabcX\r\n", "abc"},       // no CRLF after the data
      {"3\r\nabc\rX", "abc"},         // CR without LF after the data
      {"3;ext\nabc", ""},             // an extension ended by LF alone
      {"0\r\nfield\n\r\n", ""},       // a trailer ended by LF alone
      {"0\r\n\n", ""},                // the end without CR
      {"0\r\n\rX", ""},               // CR without LF at the end
      {"3x\r\nabc\r\n", ""},          // a size with garbage
      {"10000000000000000\r\n", ""},  // 2^64: overflows
      {"1 2\r\nab\r\n", ""},          // whitespace, then not an extension
      {"a \x01junk\r\n", ""},         // whitespace, then junk
      {"1 \r\nA\r\n", ""},            // whitespace without an extension
  };
  for (const auto& c : cases) {
    for (const bool one_piece : {false, true}) {
      const Decoded got = decode_split(c.wire, {}, one_piece);
      EXPECT_EQ(got.status, Status::bad_chunk) << "'" << c.wire << "'";
      EXPECT_EQ(got.body, c.body) << "'" << c.wire << "'";
    }
  }
}

TEST(ChunkedDecoder, AFailedDecoderStaysFailed) {
  ChunkedDecoder d;
  d.reset(100);
  size_t used = 0;
  auto sink = [](std::string_view) { return true; };
  EXPECT_EQ(d.decode("zz\r\n", used, sink), Status::bad_chunk);
  EXPECT_EQ(used, 0u);
  EXPECT_EQ(d.decode("3\r\nabc\r\n0\r\n\r\n", used, sink), Status::bad_chunk);
  EXPECT_FALSE(d.done());
}

TEST(ChunkedDecoder, EnforcesTheBodyLimitAtEachSizeLine) {
  const std::string wire = "4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n";
  // 7 bytes fit in 7; in 6 the second chunk's size line fails, before its data.
  EXPECT_EQ(decode_split(wire, {}, false, 7).status, Status::done);
  const Decoded cut = decode_split(wire, {}, false, 6);
  EXPECT_EQ(cut.status, Status::body_limit);
  EXPECT_EQ(cut.body, "abcd");
  EXPECT_EQ(cut.used, 12u);  // through the second size line
  EXPECT_EQ(decode_split("ffffffffffffffff\r\n", {}, false).status, Status::body_limit);
}

TEST(ChunkedDecoder, BoundsSizeLinesAndTrailers) {
  const std::string long_ext = "1;" + std::string(ChunkedDecoder::kMaxLineBytes, 'e') + "\r\nA\r\n";
  EXPECT_EQ(decode_split(long_ext, {}, false).status, Status::bad_chunk);
  std::string trailers = "0\r\n";
  while (trailers.size() < ChunkedDecoder::kMaxLineBytes + 100) trailers += "x-field: value\r\n";
  EXPECT_EQ(decode_split(trailers + "\r\n", {}, false).status, Status::bad_chunk);
  // Just within the bound: accepted.
  const std::string ok_ext =
      "1;" + std::string(ChunkedDecoder::kMaxLineBytes - 4, 'e') + "\r\nA\r\n0\r\n\r\n";
  EXPECT_EQ(decode_split(ok_ext, {}, false).status, Status::done);
}

TEST(ChunkedDecoder, ALargeChunkComesInPiecesAsItArrives) {
  const std::string data(5000, 'q');
  const std::string wire = "1388\r\n" + data + "\r\n0\r\n\r\n";
  const Decoded got = decode_split(wire, {6, 1006, 3006}, true);
  EXPECT_EQ(got.status, Status::done);
  EXPECT_EQ(got.body, data);
}

}  // namespace
}  // namespace sb::net
