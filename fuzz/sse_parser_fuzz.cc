// Fuzz target: the incremental SSE parser (src/sse). Input: one control byte,
// then the stream. The control byte picks the event size limit; the stream is
// parsed whole, then again split at two points derived from its bytes, and the
// contract of sse/parser.h is checked: any split gives the same events, the same
// counts and the same "cut mid-event" answer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "sse/parser.h"

namespace {

struct Outcome {
  std::vector<std::string> events;  // type '\0' data '\0' id, one string per event
  sb::sse::FeedResult result = sb::sse::FeedResult::ok;
  uint64_t count = 0, non_sse = 0;
  bool partial = false;
};

Outcome parse(std::string_view stream, std::size_t max_event_bytes,
              const std::vector<std::size_t>& cuts) {
  sb::sse::Parser parser(max_event_bytes);
  Outcome out;
  std::size_t from = 0;
  auto feed = [&](std::size_t to) {
    if (out.result != sb::sse::FeedResult::ok) return;
    out.result = parser.feed(stream.substr(from, to - from), [&](const sb::sse::Event& e) {
      std::string s(e.type);
      s += '\0';
      s += e.data;
      s += '\0';
      s += e.id;
      out.events.push_back(std::move(s));
    });
    from = to;
  };
  for (std::size_t cut : cuts) feed(cut);
  feed(stream.size());
  out.count = parser.events();
  out.non_sse = parser.non_sse_lines();
  out.partial = parser.has_partial();
  FUZZ_CHECK(out.count == out.events.size());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t max_event_bytes = (control & 1) ? std::size_t{1} << 20 : 1 + control * 4u;

  const Outcome whole = parse(stream, max_event_bytes, {});
  // Two cut points derived from the data (FNV-1a of the stream and the control byte).
  uint64_t h = 1469598103934665603ull ^ control;
  for (char c : stream) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::size_t a = stream.empty() ? 0 : h % (stream.size() + 1);
  std::size_t b = stream.empty() ? 0 : (h >> 32) % (stream.size() + 1);
  if (a > b) std::swap(a, b);
  const Outcome split = parse(stream, max_event_bytes, {a, b});

  if (whole.result == sb::sse::FeedResult::ok && split.result == sb::sse::FeedResult::ok) {
    FUZZ_CHECK(whole.events == split.events);
    FUZZ_CHECK(whole.non_sse == split.non_sse);
    FUZZ_CHECK(whole.partial == split.partial);
  }
  return 0;
}
