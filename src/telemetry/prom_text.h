#pragma once
// Prometheus text exposition format (version 0.0.4) parser: pure, incremental.
// Bytes go in through feed() in pieces split anywhere; every complete line is
// parsed as it arrives, the last unterminated line at finish(). Handles
// `# HELP` / `# TYPE` lines (and plain comments), escaped label values (\\, \",
// \n), NaN / +Inf / -Inf, optional millisecond timestamps, CR LF line ends and
// families without a `# TYPE` line (untyped). A bad line is counted and skipped,
// never fatal.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb::telemetry {

enum class PromType { untyped, counter, gauge, histogram, summary };
std::string_view to_string(PromType t);

using Labels = std::vector<std::pair<std::string, std::string>>;  // in page order

struct PromSample {
  std::string name;  // the sample's own name: foo, foo_bucket, foo_sum, foo_total ...
  Labels labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;
  bool operator==(const PromSample& o) const;
};

struct PromPage {
  std::vector<PromSample> samples;
  std::map<std::string, PromType, std::less<>> types;  // family name -> `# TYPE`
  std::map<std::string, std::string> help;
  int64_t bad_lines = 0;
  std::vector<std::string> errors;  // the first few bad lines, described

  // The family a sample belongs to and its type: `foo_bucket` of a histogram `foo` ->
  // ("foo", histogram); a name with no `# TYPE` (nor a typed base) -> (name, untyped).
  std::pair<std::string, PromType> family_of(std::string_view sample_name) const;
  // The first sample with this name (and, when given, these labels among its own).
  const PromSample* find(std::string_view name, const Labels& labels = {}) const;
};

class PromParser {
 public:
  void feed(std::string_view bytes);
  void finish();
  const PromPage& page() const { return page_; }
  PromPage take() { return std::move(page_); }

 private:
  std::string partial_;
  PromPage page_;
};

// One line, without its line end. Returns false (and counts it) when it is malformed.
bool parse_prom_line(std::string_view line, PromPage& page);
PromPage parse_prom_text(std::string_view text);

// Label value of `name`, or "" when absent.
std::string_view label(const Labels& labels, std::string_view name);
// `name{a="x",b="y"}` (sorted labels, escaped): a stable key for one series.
std::string series_key(std::string_view name, const Labels& labels);
// Appends a label value escaped for the text format.
void append_escaped_label(std::string& out, std::string_view value);

}  // namespace sb::telemetry
