// Fuzz target: the Prometheus text parser of src/telemetry/prom_text.h. Checked: never
// crashes; the page parsed whole equals the page fed in two pieces split anywhere (the
// split point is taken from the input's first byte); bad lines are counted, not fatal;
// every sample has a name; the page's text (prom_text_of) parses back to the same samples.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "telemetry/prom_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const sb::PromPage whole = sb::telemetry::parse_prom_text(text);
  FUZZ_CHECK(whole.bad_lines >= 0);
  for (const auto& s : whole.samples) FUZZ_CHECK(!s.name.empty());

  const size_t split = text.empty() ? 0 : data[0] % (text.size() + 1);
  sb::telemetry::PromParser parser;
  parser.feed(text.substr(0, split));
  parser.feed(text.substr(split));
  parser.finish();
  const sb::PromPage& pieces = parser.page();
  FUZZ_CHECK(pieces.bad_lines == whole.bad_lines);
  FUZZ_CHECK(pieces.samples.size() == whole.samples.size());
  for (size_t i = 0; i < whole.samples.size(); ++i) {
    const auto& a = whole.samples[i];
    const auto& b = pieces.samples[i];
    // NaN != NaN: compare everything but a NaN value by ==.
    FUZZ_CHECK(a.name == b.name && a.labels == b.labels && a.timestamp_ms == b.timestamp_ms);
    FUZZ_CHECK(a.value == b.value || (a.value != a.value && b.value != b.value));
  }
  FUZZ_CHECK(pieces.types == whole.types);

  const sb::PromPage again = sb::telemetry::parse_prom_text(sb::prom_text_of(whole));
  FUZZ_CHECK(again.bad_lines == 0);
  FUZZ_CHECK(again.samples == whole.samples);  // PromSample's == holds NaN equal to NaN
  return 0;
}
