// Fuzz target: the plan loader (plan::parse_plan, the text form of load_plan_file).
// Checked: it returns a plan or throws sb::Error(usage) whose message starts with the
// file name, never another exception; a plan it returns is what the runner relies on:
// providers as in plan_checks.h, known scenarios, the plan's own defaults within their ranges
// and the others (prof's flags, read by cli/plan_defaults.h) none of the refused keys,
// stages with unique folder-safe names, load levels >= 1 in strictly rising order, one
// kind of load per stage, every run bounded, one level for a baseline or a soak (with a
// duration), saturation searches only in sweeps and with sane options.
//
// `providers: PATH` loads a file relative to the plan: the plan is named
// /nonexistent-servebench-fuzz/plan.yaml so that a relative path never exists (the
// "no such file" error is still exercised), and inputs whose providers: is an absolute
// path are skipped (they would read files of this machine, /dev/zero included).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "fuzz_check.h"
#include "metrics/goodput.h"
#include "plan/plan.h"
#include "plan_checks.h"

namespace {

constexpr const char* kFile = "/nonexistent-servebench-fuzz/plan.yaml";

bool reads_an_absolute_path(const std::string& text) {
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return false;
    const YAML::Node prov = root["providers"];
    return prov && prov.IsScalar() && !prov.Scalar().empty() && prov.Scalar().front() == '/';
  } catch (const YAML::Exception&) {
    return false;  // parse_plan reports the syntax error
  }
}

bool finite_at_least(double v, double min) {
  return std::isfinite(v) && v >= min;
}

void check_goodput(const std::vector<std::string>& list) {
  for (const auto& g : list) {
    sb::metrics::Slo slo;
    FUZZ_CHECK(!sb::metrics::parse_goodput(g, slo));
  }
}

template <typename T>
void check_levels(const std::vector<T>& levels) {
  for (size_t i = 0; i < levels.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      FUZZ_CHECK(std::isfinite(levels[i]) && levels[i] > 0);
    } else {
      FUZZ_CHECK(levels[i] >= 1);
    }
    if (i > 0) FUZZ_CHECK(levels[i] > levels[i - 1]);
  }
}

void check_stage(const sb::plan::Stage& s) {
  using sb::plan::StageKind;
  FUZZ_CHECK(!s.name.empty() && !s.where.empty());
  for (char c : s.name)
    FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
  check_levels(s.concurrency);
  check_levels(s.request_rate);
  FUZZ_CHECK(s.concurrency.empty() || s.request_rate.empty());
  const size_t levels = s.concurrency.size() + s.request_rate.size();
  FUZZ_CHECK(s.max_concurrency >= 0 && s.num_requests >= 0 && s.requests_per_level >= 0);
  FUZZ_CHECK(finite_at_least(s.duration_s, 0));
  FUZZ_CHECK(s.num_requests > 0 || s.requests_per_level > 0 || s.duration_s > 0);
  if (s.warmup) FUZZ_CHECK(*s.warmup >= 0);
  if (s.input_length) FUZZ_CHECK(*s.input_length >= 1);
  if (s.output_length) FUZZ_CHECK(*s.output_length >= 1);
  check_goodput(s.goodput);
  switch (s.kind) {
    case StageKind::baseline:
      FUZZ_CHECK(levels == 1);
      break;
    case StageKind::soak:
      FUZZ_CHECK(levels == 1 && s.duration_s > 0);
      break;
    case StageKind::ramp:
      FUZZ_CHECK(levels >= 1);
      break;
    case StageKind::sweep:
      FUZZ_CHECK(levels >= 1 || s.rate_search);
      break;
  }
  if (s.until_saturation) {
    FUZZ_CHECK(s.kind == StageKind::sweep && s.request_rate.empty() && !s.concurrency.empty());
    const auto& o = s.saturation;
    FUZZ_CHECK(finite_at_least(o.min_gain, 0) && finite_at_least(o.latency_climb, 0));
    FUZZ_CHECK(finite_at_least(o.max_error_rate, 0) && finite_at_least(o.factor, 1.01));
    FUZZ_CHECK(finite_at_least(o.max_level, 1));
    if (s.concurrency.size() > 1) {
      FUZZ_CHECK(o.levels.size() == s.concurrency.size());
      for (size_t i = 0; i < o.levels.size(); ++i)
        FUZZ_CHECK(o.levels[i] == static_cast<double>(s.concurrency[i]));
    }
  }
  if (s.rate_search) {
    FUZZ_CHECK(s.kind == StageKind::sweep);
    const auto& r = *s.rate_search;
    FUZZ_CHECK(finite_at_least(r.low, 1e-6) && std::isfinite(r.high) && r.high > r.low);
    FUZZ_CHECK(r.steps >= 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (reads_an_absolute_path(text)) return 0;
  sb::plan::Plan plan;
  try {
    plan = sb::plan::parse_plan(text, kFile);
  } catch (const sb::Error& e) {
    sb::fuzz::check_usage_error(e, kFile);
    return 0;
  }
  FUZZ_CHECK(plan.file == kFile);
  sb::fuzz::check_providers(plan.providers);
  for (const auto& sc : plan.scenarios) FUZZ_CHECK(sc == "chat" || sc == "long" || sc == "mixed");
  const auto& d = plan.defaults;
  FUZZ_CHECK(finite_at_least(d.cooldown_s, 0));
  FUZZ_CHECK(finite_at_least(d.max_error_rate, 0) && d.max_error_rate <= 1);
  for (const auto& f : d.flags) {  // prof's flags by name; their meaning is cli::plan_runs_of's
    FUZZ_CHECK(f.key != "cooldown" && f.key != "max_error_rate");
    FUZZ_CHECK(f.key.find('-') == std::string::npos);
    FUZZ_CHECK(f.key != "concurrency" && f.key != "request_rate" && f.key != "base_url" &&
               f.key != "trace" && f.key != "session_concurrency");
    FUZZ_CHECK(f.key_where.starts_with(kFile) && f.value_where.starts_with(kFile));
  }
  FUZZ_CHECK(!plan.stages.empty());
  std::set<std::string> names;
  for (const auto& s : plan.stages) {
    check_stage(s);
    FUZZ_CHECK(names.insert(s.name).second);
  }
  return 0;
}
