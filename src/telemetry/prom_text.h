#pragma once
// Prometheus text exposition format (version 0.0.4) parser: pure, incremental.
// Bytes go in through feed() in pieces split anywhere; every complete line is
// parsed as it arrives, the last unterminated line at finish(). Handles
// `# HELP` / `# TYPE` lines (and plain comments), escaped label values (\\, \",
// \n), NaN / +Inf / -Inf, optional millisecond timestamps, CR LF line ends and
// families without a `# TYPE` line (untyped). A bad line is counted and skipped,
// never fatal.
#include <string>
#include <string_view>

#include "common/prom_page.h"

namespace sb::telemetry {

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

}  // namespace sb::telemetry
