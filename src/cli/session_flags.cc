#include "cli/session_flags.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/header_check.h"
#include "common/units.h"
#include "workload/session_spec.h"

namespace sb::cli {
namespace {

workload::SessionSpec session_spec_of(const ProfFlags& f) {
  workload::SessionSpec s;
  if (!f.turns.empty()) s.turns = workload::parse_turns(f.turns);
  if (!f.think_time.empty()) s.think = workload::parse_think_time(f.think_time);
  if (!f.session_header.empty()) {
    if (const std::string why = header_name_problem(f.session_header); !why.empty())
      throw usage_error(fmt::format("--session-header: the header name {}", why));
    s.header = f.session_header;
  }
  if (!f.session_concurrency.empty()) {
    s.concurrency = parse_count(f.session_concurrency, "--session-concurrency");
    if (s.concurrency < 1)
      throw usage_error(
          fmt::format("--session-concurrency {}: must be at least 1", f.session_concurrency));
  }
  return s;
}

}  // namespace

void check_session_flags(const ProfFlags& f) {
  const workload::SessionSpec spec = session_spec_of(f);  // the values first: name a bad one
  if (!spec.enabled()) {
    if (!f.turns.empty() || !f.think_time.empty() || !f.session_header.empty())
      throw usage_error(
          "--turns, --think-time and --session-header shape multi-turn sessions: give "
          "--session-concurrency N too");
    return;
  }
  const char* own = schedule_flag_given(f);
  if (!own)
    own = f.max_concurrency != "0" ? "--max-concurrency" : !f.trace.empty() ? "--trace" : nullptr;
  if (own)
    throw usage_error(fmt::format(
        "--session-concurrency and {} exclude each other: sessions are a closed loop of their "
        "own (N sessions in flight, each sending its turns one after another)",
        own));
}

void apply_session_flags(const ProfFlags& f, engine::EngineConfig& e) {
  workload::SessionSpec spec = session_spec_of(f);
  if (!spec.enabled()) return;
  engine::LoadConfig& l = e.load;
  l.mode = engine::LoadMode::closed;
  l.concurrency = spec.concurrency;
  l.sessions = std::move(spec);
}

}  // namespace sb::cli
