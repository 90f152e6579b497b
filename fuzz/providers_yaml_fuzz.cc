// Fuzz target: the providers.yaml loader (plan::parse_providers_text, the text form of
// load_providers_file). Checked: it returns providers or throws sb::Error(usage) whose
// message starts with the file name, never another exception; what it returns keeps the
// promises of plan_checks.h (unique ids that name folders, exactly one kind of target with
// parseable URLs, 1..64 simulators, a launch only for a real server with an http
// ready_url, header lines that cannot split a request head) and apply_provider accepts it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "fuzz_check.h"
#include "plan/providers.h"
#include "plan_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<sb::plan::Provider> providers;
  try {
    providers = sb::plan::parse_providers_text(text, "providers.yaml");
  } catch (const sb::Error& e) {
    sb::fuzz::check_usage_error(e, "providers.yaml");
    return 0;
  }
  sb::fuzz::check_providers(providers);
  return 0;
}
