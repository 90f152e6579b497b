#include "cli/plan_defaults.h"

#include <algorithm>
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
  throw usage_error(fmt::format("{}: defaults.{}: {}", where, s.key, message));
}

// Sets one setting on the flags `app` binds, through prof's parser.
void set_flag(CLI::App& app, const plan::FlagSetting& s) {
  std::string key = s.key;
  std::vector<std::string> values = s.values;
  if (key == "stream") {  // the plan's spelling of --no-stream
    if (values.size() != 1 || (values[0] != "true" && values[0] != "false"))
      fail(s.value_where, s, "expected true or false");
    key = "no_stream";
    values[0] = values[0] == "true" ? "false" : "true";
  }
  const std::string name = flag_name(key);
  const CLI::Option* opt = app.get_option_no_throw(name);
  if (!opt || opt == app.get_help_ptr())
    fail(s.key_where, s,
         "unknown field: a plan's defaults are prof's flags by their names with underscores "
         "(input_dist for --input-dist; servebench prof --help), `stream: false` for "
         "--no-stream, and the plan's cooldown and max_error_rate");
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

// Provider `p`'s run from the flags: as prof converts them, with its API (the pooling APIs'
// --batch-size; the others send one input a request whatever the plan says) and, for
// --sim-reasoning-length, its simulator (the target itself is set at run time), validated as a
// run's settings are (the stage's load aside).
plan::RunSpec run_of(ProfFlags f, const plan::Provider& p) {
  if (!p.api.empty()) f.api = p.api;
  if (const auto api = protocol::api_from_string(f.api); api && !protocol::is_pooling(*api))
    f.batch_size = 1;
  f.sim = p.sim;
  plan::RunSpec run = to_run_settings(f);
  auto& t = run.engine.timeouts;
  t.first_token = std::min(t.first_token, t.total);
  engine::EngineConfig check = run.engine;
  check.load.rate_pattern = {};  // the open-loop stages' (plan::run_stage)
  engine::validate(check);
  return run;
}

// Provider `p`'s run from the plan's defaults, all at once. When that fails, the settings are
// applied again one at a time to name the first whose addition makes the run invalid (of a
// pair that excludes each other, the later): a setting that needs a later one (api: generic
// before its request_template) is then not blamed.
plan::RunSpec provider_run(const plan::Plan& plan, const plan::Provider& p) {
  const std::string of = plan.providers.size() > 1 ? fmt::format(" (provider {})", p.id) : "";
  ProfFlags all = plan_flag_defaults();
  {
    CLI::App app;
    add_prof_flags(app, all);
    for (const plan::FlagSetting& s : plan.defaults.flags) set_flag(app, s);
  }
  try {
    return run_of(all, p);
  } catch (const Error&) {
    ProfFlags some = plan_flag_defaults();
    CLI::App app;
    add_prof_flags(app, some);
    try {
      (void)run_of(some, p);
    } catch (const Error& e) {
      throw usage_error(fmt::format("{}: provider '{}': {}", p.where, p.id, e.what()));
    }
    for (const plan::FlagSetting& s : plan.defaults.flags) {
      set_flag(app, s);
      try {
        (void)run_of(some, p);
      } catch (const Error& e) {
        fail(s.value_where, s, std::string(e.what()) + of);
      }
    }
    throw;  // the last step above is the whole: not reached
  }
}

}  // namespace

plan::PlanRuns plan_runs_of(plan::Plan plan) {
  plan::PlanRuns runs;
  for (const plan::Provider& p : plan.providers) runs.bases.push_back(provider_run(plan, p));
  runs.plan = std::move(plan);
  return runs;
}

plan::PlanRuns read_plan_file(const std::string& path) {
  return plan_runs_of(plan::load_plan_file(path));
}

plan::PlanRuns read_plan(const std::string& yaml_text, const std::string& file) {
  return plan_runs_of(plan::parse_plan(yaml_text, file));
}

}  // namespace sb::cli
