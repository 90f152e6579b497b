// Plans: stages read and expanded, one precise message per broken field, the shipped
// example plan valid.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/plan_defaults.h"
#include "cli/prof_options.h"
#include "common/error.h"
#include "engine/config_json.h"
#include "plan/plan.h"
#include "plan/plan_runner.h"
#include "plan/predict_executor.h"

namespace sb::plan {
namespace {

using ::testing::HasSubstr;

const char* kHead = "providers:\n  - {id: t, sim: tgi}\n";

std::string error_of(const std::string& text) {
  try {
    cli::read_plan(text, "plan.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "(no error)";
}

TEST(Plan, ReadsStagesAndDefaults) {
  const PlanRuns runs = cli::read_plan(std::string(kHead) + R"(name: study
scenarios: [chat, long]
defaults: {api: tgi, warmup: 3, goodput: [ttft:500, tpot:50], cooldown: 1s, sim_time_scale: 0.1}
stages:
  - {kind: baseline}
  - {name: sweep, kind: sweep, concurrency: [4, 8, 16, 32], requests_per_level: 10}
  - {name: knee, kind: sweep, concurrency: 2, until_saturation: true, requests_per_level: 4, saturation: {min_gain: 0.1, max_concurrency: 64}}
  - {name: rates, kind: sweep, rate_search: {low: 1, high: 16, steps: 3}, duration: 10s}
  - {name: ramp, kind: ramp, from: 8, to: 64, steps: 4, step_duration: 30s}
  - {name: destructive, kind: soak, concurrency: 128, duration: 1h}
)",
                                       "plan.yaml");
  const Plan& p = runs.plan;
  EXPECT_EQ(p.name, "study");
  EXPECT_EQ(p.scenarios, (std::vector<std::string>{"chat", "long"}));
  ASSERT_EQ(runs.bases.size(), 1u);
  const auto& e = runs.bases[0].engine;
  EXPECT_EQ(e.adapter.api, protocol::Api::tgi);
  EXPECT_EQ(e.load.warmup, 3);
  EXPECT_EQ(runs.bases[0].slo.ttft_ms, 500);
  EXPECT_EQ(runs.bases[0].sim.time_scale, 0.1);
  EXPECT_EQ(e.workload.input_tokens, 256);  // prof's defaults where the plan is silent
  EXPECT_EQ(e.workload.output_tokens, 128);
  EXPECT_EQ(p.defaults.cooldown_s, 1);
  for (const char* off : {"false", "False", "no", "OFF"})  // YAML's spellings of false
    EXPECT_FALSE(cli::read_plan(std::string(kHead) + "defaults: {stream: " + off +
                                    "}\nstages: [{kind: baseline}]\n",
                                "plan.yaml")
                     .bases.at(0)
                     .engine.adapter.stream)
        << off;
  ASSERT_EQ(p.stages.size(), 6u);
  EXPECT_EQ(p.stages[0].name, "baseline");  // acs-bench's baseline: concurrency 1, 10 requests
  EXPECT_EQ(p.stages[0].concurrency, (std::vector<int64_t>{1}));
  EXPECT_EQ(p.stages[0].num_requests, 10);
  EXPECT_EQ(p.stages[1].requests_per_level, 10);
  EXPECT_TRUE(p.stages[2].until_saturation);
  EXPECT_EQ(p.stages[2].saturation.min_gain, 0.1);
  EXPECT_EQ(p.stages[2].saturation.max_level, 64);
  ASSERT_TRUE(p.stages[3].rate_search);
  EXPECT_EQ(p.stages[3].rate_search->high, 16);
  EXPECT_EQ(p.stages[4].concurrency, (std::vector<int64_t>{8, 26, 45, 64}));
  EXPECT_EQ(p.stages[4].duration_s, 30);
  EXPECT_EQ(p.stages[5].kind, StageKind::soak);
  EXPECT_EQ(p.stages[5].duration_s, 3600);
}

TEST(Plan, EachBrokenFieldHasItsOwnMessage) {
  struct Case {
    std::string yaml;
    const char* message;
  };
  const std::string h = kHead;
  const Case cases[] = {
      {h + "stages:\n  - {kind: warmup}\n",
       "plan.yaml:4:12: stages[0].kind: 'warmup': expected baseline, sweep, ramp or soak"},
      {h + "stages:\n  - {name: s}\n", "plan.yaml:4:5: stages[0].kind: missing"},
      {h + "stages:\n  - {kind: sweep, concurrency: [8, 4], num_requests: 5}\n",
       "plan.yaml:4:36: stages[0] (sweep).concurrency[1]: levels must rise"},
      {h + "stages:\n  - {kind: sweep, concurrency: [1, x], num_requests: 5}\n",
       "stages[0] (sweep).concurrency[1]: 'x' is not a positive number"},
      {h + "stages:\n  - {kind: soak, concurrency: 8}\n",
       "stages[0] (soak).duration: missing: how long to hold the load"},
      {h + "stages:\n  - {kind: sweep, concurrency: [1, 2]}\n",
       "stages[0] (sweep).num_requests: missing: bound each run"},
      {h + "stages:\n  - {kind: baseline, concurrency: [1, 2]}\n",
       "stages[0] (baseline).concurrency: a baseline has one load level"},
      {h + "stages:\n  - {kind: baseline, goodput: ttfb:5}\n",
       "stages[0] (baseline).goodput[0]: --goodput"},
      {h + "stages:\n  - {kind: baseline, concurency: 4}\n",
       "plan.yaml:4:22: stages[0].concurency: unknown field"},
      {h + "scenarios: [chat, poetry]\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:19: scenarios[1]: unknown scenario 'poetry' (use chat, long or mixed)"},
      {h + "stages: []\n", "stages: missing: a list of stages"},
      {"stages:\n  - {kind: baseline}\n", "plan.yaml:1:1: providers: missing"},
      {h + "defaults: {api: grpc}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:17: defaults.api: --api 'grpc'"},
      {h + "stages:\n  - {kind: ramp, from: 8, to: 4, step_duration: 1s}\n",
       "stages[0] (ramp).to: missing or not above from"},
      {h + "stages:\n  - {kind: baseline}\n  - {kind: baseline}\n",
       "stages[1].name: 'baseline' is used twice"},
      {h + "stages:\n  - {kind: sweep, request_rate: [1, 2], until_saturation: true, num_requests: "
           "5}\n",
       "until_saturation: raises concurrency; for rates use rate_search"},
      {h + "stages:\n  - {kind: sweep, rate_search: {low: 4, high: 2}, num_requests: 5}\n",
       "stages[0] (sweep).rate_search.high: missing or not above low"},
      {h + "stages:\n  - {kind: soak, concurrency: 8, duration: 1h, until_saturation: true}\n",
       "saturation searches belong to kind: sweep"},
      {h + "stages: [\n", "YAML syntax error"},
      {"providers: nowhere.yaml\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:1:12: providers: 'nowhere.yaml': no such file"},
      {"providers:\n  - {id: a}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:2:5: providers[0] (a).base_url: missing"},
      // The workload-shape and user keys: prof's own parsers, at the field's position.
      {h + "defaults: {input_dist: 'normal:mean=x'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:24: defaults.input_dist: "},
      {h + "defaults: {output_dist: 'zipf:n=3'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:25: defaults.output_dist: "},
      {h + "defaults: {shared_prefix: 'prefixes=2'}\nstages:\n  - {kind: baseline}\n",
       "defaults.shared_prefix: --shared-prefix 'prefixes=2': needs prefixes=N and suffixes=M"},
      {h + "defaults: {priority_mix: 'high:x'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:26: defaults.priority_mix: --priority-mix"},
      {h + "defaults: {arrival: bursty}\nstages:\n  - {kind: baseline, request_rate: 2}\n",
       "plan.yaml:3:21: defaults.arrival: "},
      {h + "defaults: {abandon_after: 0s}\nstages:\n  - {kind: baseline}\n",
       "defaults.abandon_after: --abandon-after 0s: must be longer than 0"},
      {h + "defaults: {burstiness: 0}\nstages:\n  - {kind: baseline, request_rate: 2}\n",
       "plan.yaml:3:24: defaults.burstiness: --burstiness 0: must be > 0"},
      {h + "defaults: {output_dist: 'uniform:min=4,max=9,unit=chars'}\nstages:\n  - {kind: "
           "baseline}\n",
       "defaults.output_dist: --output-dist 'uniform:min=4,max=9,unit=chars': output lengths "
       "are in tokens"},
      {h + "defaults: {input_dist: 'uniform:min=20,max=60'}\nstages:\n  - {kind: baseline, "
           "input_length: 4000}\n",
       "plan.yaml:5:36: stages[0].input_length: defaults.input_dist gives the prompt lengths; "
       "drop input_length"},
      {h + "defaults: {output_dist: 'uniform:min=4,max=9', output_length: 64}\nstages:\n  - "
           "{kind: baseline}\n",
       "defaults.output_length: defaults.output_dist gives the output lengths"},
      {h + "defaults: {dataset: " SERVEBENCH_SOURCE_DIR
           "/README.md, shared_prefix: 'prefixes=2,suffixes=4'}\nstages:\n  - {kind: baseline}\n",
       "defaults.shared_prefix: dataset and shared_prefix exclude each other"},
      {h + "scenarios: [chat]\ndefaults: {shared_prefix: 'prefixes=2,suffixes=4'}\nstages:\n  - "
           "{kind: baseline}\n",
       "plan.yaml:3:12: scenarios: scenarios (synthetic prompts) and defaults.shared_prefix "
       "exclude "
       "each other"},
      {"providers:\n  - {id: t, sim: tgi}\n  - {id: l, base_url: 'http://127.0.0.1:1', api: "
       "llamacpp}\ndefaults: {priority_mix: 'high:0.5,low:0.5'}\nstages:\n  - {kind: baseline}\n",
       "defaults.priority_mix: --priority-mix: --api llamacpp has no request priority "
       "servebench can send; use --api openai or openai-chat (vLLM's \"priority\" field) or tgi "
       "(the x-priority headers only) (provider l)"},
      // Every other key is prof's flag of that name, or refused saying where it belongs.
      {h + "defaults: {input_dst: 'uniform:min=1,max=4'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:12: defaults.input_dst: unknown field: a plan's settings are prof's flags"},
      {h + "defaults: {input-dist: 'uniform:min=1,max=4'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:12: defaults.input-dist: write the flag's name with underscores: input_dist"},
      {h + "defaults: {concurrency: 8}\nstages:\n  - {kind: baseline}\n",
       "defaults.concurrency: not a plan setting: a stage's load level"},
      {h + "defaults: {base_url: 'http://127.0.0.1:1'}\nstages:\n  - {kind: baseline}\n",
       "defaults.base_url: not a plan setting: a provider's"},
      {h + "defaults: {trace_speedup: 2}\nstages:\n  - {kind: baseline}\n",
       "defaults.trace_speedup: not a plan setting: a trace brings its own schedule"},
      {h + "defaults: {turns: 3}\nstages:\n  - {kind: baseline}\n",
       "defaults.turns: not a plan setting: sessions are a closed loop of their own"},
      {h + "defaults: {help: true}\nstages:\n  - {kind: baseline}\n",
       "defaults.help: unknown field"},
      {h + "defaults: {stream: maybe}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:20: defaults.stream: expected true or false"},
      {h + "defaults: {api: [tgi, openai]}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:17: defaults.api: --api takes one value, not a list"},
      {h + "defaults: {extra_body: '[1]'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:24: defaults.extra_body: --extra-body: must be a JSON object"},
      {h + "defaults: {header: ['X-A: 1', 'bad header: 2']}\nstages:\n  - {kind: baseline}\n",
       "defaults.header: -H: the header name 'bad header'"},
      {h + "defaults: {workers: many}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:21: defaults.workers: "},
      {h + "defaults: {prompt_file: nowhere.txt}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:25: defaults.prompt_file: 'nowhere.txt': no such file"},
      {h + "defaults: {rate_pattern: 'onoff:on=5s,off=10s'}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:12: defaults.rate_pattern: shapes open-loop stages (request_rate or "
       "rate_search), and this plan has none"},
      {h + "defaults: {api: generic}\nstages:\n  - {kind: baseline}\n",
       "defaults.api: --api generic needs --request-template FILE"},
      // Of several broken settings, the one that breaks the whole is named (not one that only
      // lacks a later setting): a generic API with its template, and a bad extra body.
      {h + "defaults:\n  api: generic\n  extra_body: 'not json'\n  request_template: " +
           SERVEBENCH_SOURCE_DIR "/README.md\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:5:15: defaults.extra_body: --extra-body: must be a JSON object"},
      {h + "defaults: {scenario: long}\nstages:\n  - {kind: baseline}\n",
       "defaults.scenario: not a plan setting: the plan's (scenarios: [chat, long, mixed])"},
      {h + "defaults: {api: []}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:17: defaults.api: an empty list: give a value, or leave the key out"},
      {h + "defaults:\n  seed: 1\n  seed: 2\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:5:3: defaults.seed: given twice"},
      {h + "defaults: {-H: 'X-A: 1'}\nstages:\n  - {kind: baseline}\n",
       "defaults.-H: write the flag's long name with underscores (input_dist for --input-dist, "
       "header for -H)"},
      // A provider's flags: prof's flags too, less what the provider's own fields say.
      {"providers:\n  - {id: a, sim: tgi, flags: {api: tgi}}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:2:31: providers[0] (a).flags.api: not a plan setting: the provider's own `api:`"},
      {"providers:\n  - {id: a, sim: tgi, flags: {extra_body: '[1]'}}\nstages:\n  - {kind: "
       "baseline}\n",
       "plan.yaml:2:43: providers[0] (a).flags.extra_body: --extra-body: must be a JSON object"},
      {"providers:\n  - {id: a, sim: tgi, flags: {input_length: 64, input_dist: "
       "'uniform:min=1,max=9'}}\nstages:\n  - {kind: baseline}\n",
       "providers[0] (a).flags.input_length: providers[0] (a).flags.input_dist gives the prompt "
       "lengths"},
      {"providers:\n  - {id: a, sim: tgi, flags: {max_error_rate: 0.5}}\nstages:\n  - {kind: "
       "baseline}\n",
       "providers[0] (a).flags.max_error_rate: not a plan setting: the plan's own"},
      {"providers:\n  - {id: a, sim: tgi, flags: {batch_size: 4}}\nstages:\n  - {kind: "
       "baseline}\n",
       "providers[0] (a).flags.batch_size: --batch-size sends several inputs in one request"},
      {"providers:\n  - {id: a, sim: tgi, flags: {stream: false, no_stream: false}}\nstages:\n"
       "  - {kind: baseline}\n",
       "providers[0] (a).flags.no_stream: given twice"},
      {"providers:\n  - {id: a, sim: tgi, flags: {shared_prefix: 'prefixes=2,suffixes=4'}}\n"
       "scenarios: [chat]\nstages:\n  - {kind: baseline}\n",
       "scenarios: scenarios (synthetic prompts) and providers[0] (a).flags.shared_prefix exclude"},
      {"providers:\n  - {id: a, sim: tgi, flags: {arrival: gamma}}\nstages:\n  - {kind: "
       "baseline}\n",
       "providers[0] (a).flags.arrival: shapes open-loop stages"},
      {h + "defaults: {telemetry_interval: 100}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:32: defaults.telemetry_interval: give a unit (1s, 500ms)"},
  };
  for (const auto& c : cases) EXPECT_THAT(error_of(c.yaml), HasSubstr(c.message)) << c.yaml;
}

// Seeds keep all 64 bits: no trip through a double (2^53 + 1 is the first integer a double
// cannot hold), and no multiplier forms.
TEST(Plan, SeedsKeepEveryDigit) {
  const PlanRuns runs =
      cli::read_plan(std::string(kHead) +
                         "defaults: {seed: 18446744073709551615, sim_seed: 9007199254740993}\n"
                         "stages: [{kind: baseline}]\n",
                     "plan.yaml");
  EXPECT_EQ(runs.bases[0].engine.load.seed, 18446744073709551615ull);
  EXPECT_EQ(runs.bases[0].engine.workload.seed, 18446744073709551615ull);
  ASSERT_TRUE(runs.bases[0].sim.seed.has_value());
  EXPECT_EQ(*runs.bases[0].sim.seed, 9007199254740993ull);
  for (const char* bad : {"-1", "18446744073709551616", "2k", "1.5"})
    EXPECT_THAT(error_of(std::string(kHead) + "defaults: {seed: " + bad +
                         "}\nstages: [{kind: baseline}]\n"),
                HasSubstr("plan.yaml:3:18: defaults.seed: "))
        << bad;
}

// A plan's defaults are prof's flags: the base run of a provider is the run prof converts from
// the same flags (one conversion, cli::to_run_settings), whatever the flag.
TEST(Plan, DefaultsAreProfsFlagsRunForRun) {
  const PlanRuns runs = cli::read_plan(std::string(kHead) + R"(defaults:
  api: openai
  stream: false
  extra_body: '{"temperature": 0}'
  header: ['X-Tenant: t1', 'X-Team: t2']
  input_dist: 'uniform:min=20,max=60'
  output_dist: 'normal:mean=40,sd=8,min=8,max=80'
  rate_pattern: 'onoff:on=5s,off=10s,low=0.2'
  arrival: gamma
  burstiness: 0.5
  connect_timeout: 3s
  idle_timeout: 20s
  max_event_bytes: 2M
  bucket_interval: 500
  quality_tokenize: char
  save_outputs: true
  seed: 7
  cost_per_hour: 3.5
  goodput: [ttft:200, e2e:5000]
  cooldown: 1s
stages:
  - {kind: baseline, request_rate: 4}
)",
                                       "plan.yaml");
  cli::ProfFlags f;
  CLI::App app;
  cli::add_prof_flags(app, f);
  std::vector<std::string> argv = {
      "--sim", "tgi", "--api", "openai", "--no-stream", "--extra-body", R"({"temperature": 0})",
      "-H", "X-Tenant: t1", "-H", "X-Team: t2", "--input-dist", "uniform:min=20,max=60",
      "--output-dist", "normal:mean=40,sd=8,min=8,max=80", "--rate-pattern",
      "onoff:on=5s,off=10s,low=0.2", "--arrival", "gamma", "--burstiness", "0.5",
      "--connect-timeout", "3s", "--idle-timeout", "20s", "--max-event-bytes", "2M",
      "--bucket-interval", "500", "--quality-tokenize", "char", "--save-outputs", "--seed", "7",
      "--cost-per-hour", "3.5", "--goodput", "ttft:200", "--goodput", "e2e:5000",
      // what a plan's runs take from the plan rather than from prof's defaults
      "--grace-period", "10s", "--no-progress"};
  std::reverse(argv.begin(), argv.end());
  app.parse(argv);
  const RunSpec prof = cli::to_run_settings(f);
  const RunSpec& plan = runs.bases.at(0);
  // The load mode and rate are the stage's: compared as an open loop of the same rate.
  auto open = [](engine::EngineConfig e) {
    e.load.mode = engine::LoadMode::open;
    e.load.request_rate = 4;
    return engine::config_to_json(e);
  };
  EXPECT_EQ(open(plan.engine), open(prof.engine));
  EXPECT_EQ(plan.engine.timeouts.connect, prof.engine.timeouts.connect);
  EXPECT_EQ(plan.engine.timeouts.idle, prof.engine.timeouts.idle);
  EXPECT_EQ(plan.engine.max_event_bytes, size_t{2000000});
  EXPECT_EQ(plan.engine.bucket_interval, prof.engine.bucket_interval);
  EXPECT_EQ(plan.engine.quality_tokenize, prof.engine.quality_tokenize);
  EXPECT_EQ(plan.engine.grace_period, std::chrono::seconds(10));
  EXPECT_EQ(plan.engine.headers.size(), 2u);
  EXPECT_EQ(plan.engine.adapter.extra_body, prof.engine.adapter.extra_body);
  EXPECT_FALSE(plan.engine.adapter.stream);
  EXPECT_EQ(plan.engine.load.rate_pattern.shape, load::RateShape::onoff);
  EXPECT_EQ(plan.slo.e2e_ms, 5000);
  EXPECT_EQ(plan.economics.cost_per_hour_usd, 3.5);
  EXPECT_EQ(plan.sim.preset, "tgi");
  EXPECT_FALSE(plan.print_progress);
  // A setting that needs a later one is read with it (checked as a whole, blamed one by one).
  const auto dir =
      std::filesystem::temp_directory_path() / ("sb_plan_generic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "body.json") << R"({"prompt": "{{prompt}}", "n": {{max_tokens}}})";
  const PlanRuns generic =
      cli::read_plan(std::string(kHead) +
                         "defaults: {api: generic, request_template: body.json, "
                         "stream_text_pointer: /token/text}\nstages: [{kind: baseline}]\n",
                     (dir / "plan.yaml").string());
  EXPECT_EQ(generic.bases.at(0).engine.adapter.api, protocol::Api::generic);
  EXPECT_THAT(generic.bases.at(0).engine.adapter.generic_template, HasSubstr("{{max_tokens}}"));
  std::filesystem::remove_all(dir);
}

// A provider's `flags:` are read after the plan's defaults, for its runs only.
TEST(Plan, ProviderFlagsOverTheDefaults) {
  const PlanRuns runs = cli::read_plan(R"(providers:
  - {id: a, sim: tgi, flags: {extra_body: '{"top_k": 1}', output_length: 64, endpoint: /x}}
  - {id: b, sim: tgi}
defaults: {output_length: 32, extra_body: '{"temperature": 0}', seed: 5}
stages: [{kind: baseline}]
)",
                                       "plan.yaml");
  ASSERT_EQ(runs.bases.size(), 2u);
  const auto& a = runs.bases[0].engine;
  const auto& b = runs.bases[1].engine;
  EXPECT_EQ(a.workload.output_tokens, 64);
  EXPECT_EQ(b.workload.output_tokens, 32);
  EXPECT_EQ(a.adapter.extra_body, nlohmann::json::parse(R"({"top_k": 1})"));
  EXPECT_EQ(b.adapter.extra_body, nlohmann::json::parse(R"({"temperature": 0})"));
  EXPECT_EQ(a.endpoint, "/x");
  EXPECT_EQ(b.endpoint, "");
  EXPECT_EQ(a.load.seed, 5u);  // the defaults' where the provider says nothing
  EXPECT_EQ(b.load.seed, 5u);

  // A provider's flag replaces the defaults' of the same thing (its prompt lengths, its source
  // of prompts), for its runs only; the defaults' batch size is the pooling providers'.
  const PlanRuns shapes = cli::read_plan(R"(providers:
  - {id: a, sim: tgi, flags: {input_dist: 'uniform:min=5,max=9'}}
  - {id: b, sim: tgi}
  - {id: e, sim: tgi, api: embeddings}
defaults: {input_length: 100, batch_size: 4}
stages: [{kind: baseline}]
)",
                                         "plan.yaml");
  EXPECT_EQ(shapes.bases.at(0).engine.workload.input_dist, "uniform:min=5,max=9");
  EXPECT_EQ(shapes.bases.at(1).engine.workload.input_dist, "");
  EXPECT_EQ(shapes.bases.at(1).engine.workload.input_tokens, 100);
  EXPECT_EQ(shapes.bases.at(1).engine.workload.batch_inputs, 1);
  EXPECT_EQ(shapes.bases.at(2).engine.workload.batch_inputs, 4);

  // A value the provider replaces is not the one blamed: predict refuses the provider's own.
  PredictExecutor predicted;
  try {
    cli::read_plan(R"(providers:
  - {id: a, sim: tgi, flags: {abandon_after: 5s}}
defaults: {abandon_after: 3s}
stages: [{kind: baseline}]
)",
                   "plan.yaml", predicted);
    ADD_FAILURE() << "predict accepted abandon_after";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("plan.yaml:2:46: providers[0] (a).flags.abandon_after: "
                                    "predict: --abandon-after is not modelled"));
  }
}

// The workload's shape and the users' behaviour reach every run of a plan as prof's flags of
// the same names would: the runs' summary.json config and their requests (in virtual time).
TEST(Plan, WorkloadShapeAndUserKeysReachEveryRun) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sb_plan_workload_keys_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const PlanRuns plan = cli::read_plan(std::string(kHead) + R"(name: shapes
defaults:
  api: openai-chat
  input_dist: 'uniform:min=20,max=60'
  output_dist: 'uniform:min=4,max=12'
  priority_mix: 'high:0.25,low:0.75'
  arrival: constant
  burstiness: 0.5
  ignore_eos: true
stages:
  - {name: closed, kind: baseline, concurrency: 4, num_requests: 64}
  - {name: open, kind: baseline, request_rate: 20, num_requests: 64}
)",
                                       "plan.yaml");
  EXPECT_EQ(plan.bases[0].engine.load.arrival, load::Arrival::constant);
  EXPECT_EQ(plan.bases[0].engine.load.burstiness, 0.5);
  PredictExecutor exec;
  PlanRunOptions o;
  o.output_dir = dir.string();
  o.quiet = true;
  o.executor = &exec;
  ASSERT_EQ(run_plan(plan, o), 0);
  int runs = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (!std::filesystem::exists(f.path() / "summary.json")) continue;
    ++runs;
    const auto j = nlohmann::json::parse(std::ifstream(f.path() / "summary.json"));
    const auto& cfg = j["config"];
    EXPECT_EQ(cfg["workload"]["input_dist"], "uniform:min=20,max=60");
    EXPECT_EQ(cfg["workload"]["output_dist"], "uniform:min=4,max=12");
    ASSERT_EQ(cfg["load"]["priority_mix"].size(), 2u);
    EXPECT_EQ(cfg["load"]["priority_mix"][0]["class"], "high");
    if (cfg["load"]["mode"] == "open") {
      EXPECT_EQ(cfg["load"]["arrival"], "constant");
      EXPECT_EQ(cfg["load"]["burstiness"], 0.5);
    }
    std::set<std::string> classes;
    std::set<int64_t> inputs, outputs;
    std::ifstream log(f.path() / "requests.jsonl");
    for (std::string line; std::getline(log, line);) {
      const auto r = nlohmann::json::parse(line);
      if (r.value("warmup", false)) continue;
      classes.insert(r["priority_class"].get<std::string>());
      const int64_t out = r["output_tokens"].get<int64_t>();
      EXPECT_GE(out, 4);
      EXPECT_LE(out, 12);
      outputs.insert(out);
      const int64_t in = r["input_tokens"].get<int64_t>();
      EXPECT_GE(in, 20);
      EXPECT_LE(in, 60);
      inputs.insert(in);
    }
    EXPECT_GT(inputs.size(), 3u) << f.path();
    EXPECT_EQ(classes, (std::set<std::string>{"high", "low"})) << f.path();
    EXPECT_GT(outputs.size(), 3u) << f.path();  // drawn, not the fixed output_length
  }
  EXPECT_EQ(runs, 2);
  std::filesystem::remove_all(dir);
}

// What `predict` does not model is refused for the whole plan before any run or folder (run
// and run --check read the plan with their executor), at the setting or the provider that
// causes it; a live executor takes the same plans.
TEST(Plan, PredictRefusesWhatItDoesNotModelBeforeTheFirstRun) {
  const std::string abandon =
      std::string(kHead) +
      "defaults:\n  seed: 3\n  abandon_after: 5s\nstages: [{kind: baseline}]\n";
  RunExecutor live;
  EXPECT_NO_THROW(cli::read_plan(abandon, "plan.yaml", live));
  PredictExecutor predicted;
  try {
    cli::read_plan(abandon, "plan.yaml", predicted);
    ADD_FAILURE() << "predict accepted abandon_after";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_THAT(e.what(), HasSubstr("plan.yaml:5:18: defaults.abandon_after: predict: "
                                    "--abandon-after is not modelled in virtual time"));
  }
  const std::string pooling =
      "providers:\n  - {id: e, sim: tgi, api: embeddings}\nstages: [{kind: baseline}]\n";
  EXPECT_THROW(cli::read_plan(pooling, "plan.yaml", predicted), Error);
  EXPECT_NO_THROW(cli::read_plan(pooling, "plan.yaml", live));
  const std::string real =
      "providers:\n  - {id: t, sim: tgi}\n  - {id: r, base_url: 'http://127.0.0.1:1'}\n"
      "stages: [{kind: baseline}]\n";
  EXPECT_NO_THROW(cli::read_plan(real, "plan.yaml", live));
  try {
    cli::read_plan(real, "plan.yaml", predicted);
    ADD_FAILURE() << "predict accepted a real server";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("plan.yaml:3:5: provider 'r': predict needs a simulated target"));
  }
}

TEST(Plan, ShippedReferenceStudyIsValid) {
  const Plan p = cli::read_plan_file(SERVEBENCH_SOURCE_DIR "/examples/reference-study.yaml").plan;
  ASSERT_EQ(p.providers.size(), 3u);
  EXPECT_EQ(p.providers[0].sim, "pytorch");
  EXPECT_EQ(p.providers[2].sim, "tgi");
  EXPECT_EQ(p.scenarios, (std::vector<std::string>{"chat", "long", "mixed"}));
  const Plan acs = cli::read_plan_file(SERVEBENCH_SOURCE_DIR "/examples/acs-stress-test.yaml").plan;
  EXPECT_EQ(acs.stages.size(), 3u);
}

}  // namespace
}  // namespace sb::plan
