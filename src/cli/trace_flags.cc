#include "cli/trace_flags.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"
#include "workload/trace.h"

namespace sb::cli {

void check_trace_flags(const ProfFlags& f) {
  if (f.trace.empty()) {
    if (!f.trace_format.empty() || !f.trace_window.empty() || f.trace_speedup != 1.0 ||
        f.trace_block_tokens != 512)
      throw usage_error(
          "--trace-format, --trace-speedup, --trace-window and --trace-block-tokens shape a "
          "trace replay: give --trace FILE too");
    return;
  }
  if (const char* own = schedule_flag_given(f))
    throw usage_error(fmt::format(
        "--trace and {} exclude each other: a trace sends each request at its own time (an "
        "open loop); scale it with --trace-speedup, cap it with --max-concurrency",
        own));
  if (f.trace_format.empty())
    throw usage_error(fmt::format("--trace needs --trace-format: {}", workload::kTraceFormats));
}

void apply_trace_flags(const ProfFlags& f, engine::EngineConfig& e) {
  if (f.trace.empty()) return;
  workload::TraceSpec spec;
  spec.path = f.trace;
  spec.format = workload::parse_trace_format(f.trace_format);
  spec.speedup = f.trace_speedup;
  if (!f.trace_window.empty()) spec.window = workload::parse_trace_window(f.trace_window);
  spec.block_tokens = f.trace_block_tokens;
  auto trace = std::make_shared<const workload::Trace>(workload::load_trace(spec));
  for (const std::string& w : trace->warnings) fmt::print(stderr, "servebench: warning: {}\n", w);

  engine::LoadConfig& l = e.load;
  l.mode = engine::LoadMode::open;
  l.concurrency = 1;
  l.trace_offsets = std::make_shared<const std::vector<Nanos>>(trace->offsets);
  l.request_rate = trace->mean_rate_per_s();
  l.max_concurrency = parse_count(f.max_concurrency, "--max-concurrency");
  const auto entries = static_cast<int64_t>(trace->entries.size());
  l.num_requests = f.num_requests.empty() ? entries : std::min(entries, l.num_requests);
  e.workload.trace_first_id = static_cast<uint64_t>(l.warmup);
  e.workload.trace = std::move(trace);
}

}  // namespace sb::cli
