#pragma once
// One Prometheus page as data: its samples in page order and its families' `# TYPE` and
// `# HELP`. The scrape parses text into it (telemetry/prom_text.h); the simulator and the
// benchmark's own live endpoint (telemetry/live_metrics.h) build it from their state
// (PromPageFill) and serve it as text (prom_text_of); the simulator also hands it as is to a
// virtual run's ingestion: parse_prom_text(prom_text_of(page)) gives back its samples, and the
// types and help of the families that have samples (not the rest, nor bad_lines and errors).
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb {

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
  std::map<std::string, std::string, std::less<>> help;
  int64_t bad_lines = 0;
  std::vector<std::string> errors;  // the first few bad lines, described
  // Who reads pages of one source again and again (telemetry::PageIngest) may trust two pages
  // with the same non-zero id to have the same layout: the same samples' names and labels in
  // the same order, and the same types. PromPageFill takes a new id (unique in the process)
  // whenever a fill changes the layout; 0, as a parsed page has it, promises nothing. Whoever
  // changes a page's names, labels, sample count or types by other means sets it to 0.
  uint64_t layout_id = 0;

  // The family a sample belongs to and its type: `foo_bucket` of a histogram `foo` ->
  // ("foo", histogram); a name with no `# TYPE` (nor a typed base) -> (name, untyped).
  std::pair<std::string, PromType> family_of(std::string_view sample_name) const;
  // The first sample with this name (and, when given, these labels among its own).
  const PromSample* find(std::string_view name, const Labels& labels = {}) const;
};

// Label value of `name`, or "" when absent.
std::string_view label(const Labels& labels, std::string_view name);
// `name{a="x",b="y"}` (sorted labels, escaped): a stable key for one series.
std::string series_key(std::string_view name, const Labels& labels);

// The page as text exposition (0.0.4): each family's `# HELP` and `# TYPE` lines once, before
// its first sample, values as fmt's "{}" (shortest round trip, so parsing gives them back exactly).
std::string prom_text_of(const PromPage& page);

// Refills a page in place, family by family, reusing its samples' strings and label vectors:
// a page rebuilt from the same state layout allocates nothing once it has been filled once.
// The page's samples end at the last one written when the fill is destroyed.
class PromPageFill {
 public:
  explicit PromPageFill(PromPage& page);
  ~PromPageFill();
  PromPageFill(const PromPageFill&) = delete;
  PromPageFill& operator=(const PromPageFill&) = delete;

  void family(std::string_view name, PromType type, std::string_view help = {});
  void sample(std::string_view name, const Labels& labels, double value);
  // NAME_bucket{labels..., le=le_texts[i]} (cumulative), NAME_bucket{..., le="+Inf"},
  // NAME_sum, NAME_count. `counts` per bucket, non-cumulative, le_texts.size() + 1 of them.
  void histogram(std::string_view name, const Labels& labels, std::span<const std::string> le_texts,
                 std::span<const uint64_t> counts, double sum);

 private:
  PromSample& next(std::string_view name);
  // `to` = `from`, noting whether it changed the layout.
  void set(std::string& to, std::string_view from);
  PromPage& page_;
  size_t n_ = 0;          // samples written
  std::string name_;      // a histogram's sample name, reused
  bool changed_ = false;  // the layout differs from the page's before the fill
};

}  // namespace sb
