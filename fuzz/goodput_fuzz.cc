// Fuzz target: the --goodput flag parser (src/metrics/goodput.h). Input: flag
// values separated by '\n'. Checked: parse_goodput either fills one bound with a
// finite positive number or returns a message and leaves the SLO unchanged;
// parse_goodput_flags agrees with it or throws sb::Error (usage).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "fuzz_check.h"
#include "metrics/goodput.h"

namespace {

bool same(const sb::metrics::Slo& a, const sb::metrics::Slo& b) {
  return a.ttft_ms == b.ttft_ms && a.tpot_ms == b.tpot_ms && a.e2e_ms == b.e2e_ms;
}

bool valid_bound(const std::optional<double>& v) {
  return !v || (std::isfinite(*v) && *v > 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> values;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    values.emplace_back(rest.substr(0, eol));
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
  }
  sb::metrics::Slo slo;
  bool all_ok = true;
  for (const auto& v : values) {
    const sb::metrics::Slo before = slo;
    if (auto err = sb::metrics::parse_goodput(v, slo)) {
      FUZZ_CHECK(!err->empty());
      FUZZ_CHECK(same(before, slo));
      all_ok = false;
      break;
    }
    FUZZ_CHECK(!same(before, slo));
    FUZZ_CHECK(valid_bound(slo.ttft_ms) && valid_bound(slo.tpot_ms) && valid_bound(slo.e2e_ms));
  }
  try {
    const sb::metrics::Slo parsed = sb::metrics::parse_goodput_flags(values);
    FUZZ_CHECK(all_ok && same(parsed, slo));
  } catch (const sb::Error& e) {
    FUZZ_CHECK(!all_ok && e.code() == sb::ExitCode::usage);
  }
  return 0;
}
