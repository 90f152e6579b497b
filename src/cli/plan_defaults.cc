#include "cli/plan_defaults.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "cli/prof_options.h"
#include "common/error.h"
#include "config/engine_config.h"
#include "protocol/adapter.h"

namespace sb::cli {
namespace {

// The flags a plan's runs start from: prof's, but for the plan's own defaults.
ProfFlags plan_flag_defaults() {
  ProfFlags f;
  f.api = "openai-chat";   // providers.yaml's default API
  f.grace_period = "10s";  // a stop waits less: the next provider's runs are not started
  f.no_progress = true;    // a plan prints one line a run instead
  return f;
}

std::string flag_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return "--" + key;
}

[[noreturn]] void fail(const std::string& where, const plan::FlagSetting& s,
                       const std::string& message) {
  throw usage_error(fmt::format("{}: {}: {}", where, s.field, message));
}

// Sets one setting on the flags `app` binds, through prof's parser.
void set_flag(CLI::App& app, const plan::FlagSetting& s) {
  std::string key = s.key;
  std::vector<std::string> values = s.values;
  if (key == "stream") {  // the plan's spelling of --no-stream, in any of YAML's spellings
    std::string v = values.size() == 1 ? values[0] : "";
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool on = v == "true" || v == "yes" || v == "on";
    if (!on && v != "false" && v != "no" && v != "off")
      fail(s.value_where, s, "expected true or false");
    key = "no_stream";
    values = {on ? "false" : "true"};
  }
  const std::string name = flag_name(key);
  const CLI::Option* opt = app.get_option_no_throw(name);
  if (!opt || opt == app.get_help_ptr())
    fail(s.key_where, s,
         "unknown field: a plan's settings are prof's flags by their names with underscores "
         "(input_dist for --input-dist; servebench prof --help) and `stream: false` for "
         "--no-stream (defaults: also the plan's cooldown and max_error_rate)");
  if (values.size() > 1 && opt->get_items_expected_max() <= 1 && opt->get_expected_max() <= 1)
    fail(s.value_where, s, fmt::format("{} takes one value, not a list", name));
  std::vector<std::string> args;
  for (const std::string& v : values) args.push_back(name + "=" + v);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    fail(s.value_where, s, e.what());
  }
}

// Provider `p`'s flags after the first `n` of `settings` (plan::provider_settings): the
// defaults', then the provider's API and simulator (the defaults' --batch-size is the pooling
// providers', their --sim-reasoning-length the sim providers'), then its own flags.
ProfFlags flags_after(const std::vector<plan::FlagSetting>& settings, size_t n,
                      const plan::Provider& p) {
  ProfFlags f = plan_flag_defaults();
  CLI::App app;
  add_prof_flags(app, f);
  bool own = false;
  const auto provider_steps_in = [&] {
    own = true;
    if (!p.api.empty()) f.api = p.api;
    if (const auto api = protocol::api_from_string(f.api); api && !protocol::is_pooling(*api))
      f.batch_size = 1;
    f.sim = p.sim;  // the target itself is set at run time
    if (p.sim.empty()) f.sim_reasoning_length = 0;
  };
  for (size_t i = 0; i < n; ++i) {
    if (settings[i].of_provider && !own) provider_steps_in();
    set_flag(app, settings[i]);
  }
  if (!own) provider_steps_in();
  return f;
}

// The run of the flags, as prof converts them, validated as a run's settings are (the stage's
// load aside) and as `exec` runs them.
plan::RunSpec run_of(const ProfFlags& f, const plan::RunExecutor& exec) {
  plan::RunSpec run = to_run_settings(f);
  engine::EngineConfig check = run.engine;
  check.load.rate_pattern = {};  // the open-loop stages' (plan::run_stage)
  engine::validate(check);
  exec.check(run);  // `predict run`: a simulated target, and what virtual time models
  return run;
}

// Provider `p`'s run from its settings, all at once. When that fails, the settings are applied
// again one at a time, and the first whose addition fails the way the whole does is named (of a
// pair that excludes each other, the later); a setting that fails only without a later one
// (api: generic before its request_template) is passed over. Failing without any setting is
// the provider's.
plan::RunSpec provider_run(const plan::Plan& plan, const plan::Provider& p,
                           const plan::RunExecutor& exec) {
  const std::vector<plan::FlagSetting> settings =
      plan::provider_settings(plan.defaults.flags, p.flags);
  std::string whole;
  try {
    return run_of(flags_after(settings, settings.size(), p), exec);
  } catch (const Error& e) {
    whole = e.what();
  }
  const auto fails_so = [&](size_t n) {
    try {
      (void)run_of(flags_after(settings, n, p), exec);
    } catch (const Error& e) {
      return e.what() == whole;
    }
    return false;
  };
  if (fails_so(0)) throw usage_error(fmt::format("{}: provider '{}': {}", p.where, p.id, whole));
  for (size_t n = 1; n <= settings.size(); ++n)
    if (fails_so(n)) {
      const plan::FlagSetting& s = settings[n - 1];
      const bool several = plan.providers.size() > 1 && !s.of_provider;
      fail(s.value_where, s, whole + (several ? fmt::format(" (provider {})", p.id) : ""));
    }
  throw usage_error(fmt::format("{}: {}", plan.file, whole));  // not reached: the last is all
}

}  // namespace

plan::PlanRuns plan_runs_of(plan::Plan plan, const plan::RunExecutor& exec) {
  plan::PlanRuns runs;
  for (const plan::Provider& p : plan.providers) runs.bases.push_back(provider_run(plan, p, exec));
  runs.plan = std::move(plan);
  return runs;
}

plan::PlanRuns read_plan_file(const std::string& path, const plan::RunExecutor& exec) {
  return plan_runs_of(plan::load_plan_file(path), exec);
}

plan::PlanRuns read_plan(const std::string& yaml_text, const std::string& file,
                         const plan::RunExecutor& exec) {
  return plan_runs_of(plan::parse_plan(yaml_text, file), exec);
}

}  // namespace sb::cli
