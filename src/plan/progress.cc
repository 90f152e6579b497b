#include "plan/progress.h"

#include <fmt/format.h>
#include <unistd.h>

namespace sb::plan {

ProgressPrinter::ProgressPrinter(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) != 0) {}

void ProgressPrinter::update(const engine::LiveTotals& t) {
  const double every_s = tty_ ? 0.5 : 5.0;
  if (t.elapsed_s - last_print_s_ < every_s) return;
  const double dt = t.elapsed_s - last_rate_s_;
  const double rps = dt > 0 ? static_cast<double>(t.done - last_done_) / dt : 0;
  const double tps = dt > 0 ? static_cast<double>(t.output_tokens - last_tokens_) / dt : 0;
  last_done_ = t.done;
  last_tokens_ = t.output_tokens;
  last_rate_s_ = t.elapsed_s;
  last_print_s_ = t.elapsed_s;
  std::string plan =
      t.planned > 0 ? fmt::format("{}/{}", t.done, t.planned) : fmt::format("{}", t.done);
  if (t.planned_s > 0) plan += fmt::format(" ({:.0f}/{:.0f}s)", t.elapsed_s, t.planned_s);
  std::string line =
      fmt::format("[{:7.1f}s] done {}  {:.1f} req/s  {:.0f} tok/s  in-flight {}  errors {}",
                  t.elapsed_s, plan, rps, tps, t.in_flight, t.errors);
  if (t.ttft_p50_ms >= 0) line += fmt::format("  ttft p50 ~{:.0f} ms", t.ttft_p50_ms);
  if (tty_) {
    fmt::print(out_, "\r\x1b[2K{}", line);
    drew_ = true;
  } else {
    fmt::print(out_, "{}\n", line);
  }
  std::fflush(out_);
}

void ProgressPrinter::finish() {
  if (drew_) fmt::print(out_, "\n");
  drew_ = false;
  std::fflush(out_);
}

}  // namespace sb::plan
