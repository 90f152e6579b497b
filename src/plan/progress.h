#pragma once
// Live progress on stderr: a line redrawn in place on a terminal (every 0.5 s),
// a plain line every 5 s otherwise (CI logs, files).
#include <cstdio>

#include "engine/engine.h"

namespace sb::plan {

class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::FILE* out);
  void update(const engine::LiveTotals& t);
  void finish();  // ends a redrawn line

 private:
  std::FILE* out_;
  bool tty_;
  double last_print_s_ = -1e9;
  uint64_t last_done_ = 0, last_tokens_ = 0;
  double last_rate_s_ = 0;
  bool drew_ = false;
};

}  // namespace sb::plan
