// Fuzz target: the unit parsers of src/common/units.h (durations, counts,
// rates). Checked: each returns a value or throws sb::Error (usage); values are
// finite and non-negative (rates positive), as units.h promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "common/units.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const double s = sb::parse_duration_s(text, "--duration");
    FUZZ_CHECK(std::isfinite(s) && s >= 0);
  } catch (const sb::Error& e) {
    FUZZ_CHECK(e.code() == sb::ExitCode::usage);
  }
  try {
    const double ms = sb::parse_duration_ms(text);
    FUZZ_CHECK(std::isfinite(ms) && ms >= 0);
  } catch (const sb::Error& e) {
    FUZZ_CHECK(e.code() == sb::ExitCode::usage);
  }
  try {
    FUZZ_CHECK(sb::parse_count(text, "-n") >= 0);
  } catch (const sb::Error& e) {
    FUZZ_CHECK(e.code() == sb::ExitCode::usage);
  }
  try {
    const double r = sb::parse_rate_per_s(text, "--request-rate");
    FUZZ_CHECK(std::isfinite(r) && r > 0);
  } catch (const sb::Error& e) {
    FUZZ_CHECK(e.code() == sb::ExitCode::usage);
  }
  return 0;
}
