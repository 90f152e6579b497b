// Fuzz target: the dataset parsers of src/workload/dataset.h (one JSONL line, a whole JSONL
// file, a ShareGPT file). Checked: a line either gives entries or a reason, never both;
// every entry has a prompt (or messages) and a max_tokens of 0 or 1..10^7; messages are a
// JSON array; the file parsers' counts add up (bad <= records, first_bad set iff bad > 0).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "workload/dataset.h"

namespace {

void check_entries(const std::vector<sb::workload::DatasetEntry>& entries) {
  for (const auto& e : entries) {
    FUZZ_CHECK(!e.prompt.empty() || !e.messages_json.empty());
    FUZZ_CHECK(e.max_tokens >= 0 && e.max_tokens <= 10'000'000);
    if (!e.messages_json.empty()) {
      const auto m = nlohmann::json::parse(e.messages_json, nullptr, false);
      FUZZ_CHECK(m.is_array() && !m.empty());
    }
  }
}

void check_parse(const sb::workload::DatasetParse& p) {
  FUZZ_CHECK(p.bad >= 0 && p.bad <= p.records);
  FUZZ_CHECK(p.first_bad.has_value() == (p.bad > 0));
  if (p.first_bad) FUZZ_CHECK(p.first_bad->line >= 1 && !p.first_bad->message.empty());
  check_entries(p.entries);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<sb::workload::DatasetEntry> entries;
  const auto error = sb::workload::parse_jsonl_line(text, entries);
  FUZZ_CHECK(!error || (entries.empty() && !error->empty()));
  FUZZ_CHECK(error || !entries.empty());
  check_entries(entries);
  check_parse(sb::workload::parse_jsonl(text));
  check_parse(sb::workload::parse_sharegpt(text));
  return 0;
}
