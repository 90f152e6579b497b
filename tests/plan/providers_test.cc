// providers.yaml: every field read, and one precise "FILE:LINE:COL: FIELD: problem" message
// per broken field.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/plan_defaults.h"
#include "common/error.h"
#include "plan/execute_run.h"
#include "plan/plan.h"
#include "plan/plan_runner.h"
#include "plan/predict_executor.h"
#include "plan/providers.h"
#include "sim/cost_model.h"

namespace sb::plan {
namespace {

using ::testing::HasSubstr;

std::vector<Provider> parse(const std::string& text) {
  return parse_providers(YamlContext{"providers.yaml"}, YAML::Load(text)["providers"]);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "(no error)";
}

TEST(Providers, ReadsAcsBenchAndOwnFields) {
  const auto ps = parse(R"(providers:
  - id: vllm-a
    name: vLLM A
    api_key: sk-123
    base_url: http://10.0.0.1:8000/v1
    model_name: Qwen3-8B
    model_category: Qwen3
    api: openai-chat
    endpoints: [http://10.0.0.2:8000/v1, http://10.0.0.3:8000/v1]
    load_balancer: least-inflight
    headers: {X-Tenant: t1}
  - id: tgi
    sim: tgi
    sim_replicas: 2
  - id: local
    base_url: http://127.0.0.1:8080
    launch: {command: "exec my-server", ready_url: "http://127.0.0.1:8080/health", ready_timeout: 2m, stop_grace: 5s}
)");
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].id, "vllm-a");
  EXPECT_EQ(ps[0].name, "vLLM A");
  EXPECT_EQ(ps[0].model_category, "Qwen3");
  ASSERT_EQ(ps[0].endpoints.size(), 3u);
  EXPECT_EQ(ps[0].endpoints[2], "http://10.0.0.3:8000/v1");
  EXPECT_EQ(ps[0].load_balancer, engine::LoadBalancer::least_inflight);
  ASSERT_EQ(ps[0].headers.size(), 1u);
  EXPECT_EQ(ps[0].headers[0].second, "t1");
  EXPECT_EQ(ps[1].name, "tgi");
  EXPECT_EQ(ps[1].sim, "tgi");
  EXPECT_EQ(ps[1].sim_replicas, 2);
  ASSERT_TRUE(ps[2].launch);
  EXPECT_EQ(ps[2].launch->ready_timeout_s, 120);
  EXPECT_EQ(ps[2].launch->stop_grace_s, 5);
  EXPECT_EQ(ps[2].where, "providers.yaml:15:5");

  // acs-bench's http://host:8000/v1 base URL: the OpenAI paths already hold /v1.
  engine::EngineConfig e;
  e.adapter.api = protocol::Api::openai;
  apply_provider(ps[0], {}, e);
  EXPECT_EQ(e.adapter.api, protocol::Api::openai_chat);
  EXPECT_EQ(e.client.url.target("/v1/chat/completions"), "/v1/chat/completions");
  EXPECT_EQ(e.extra_endpoints.size(), 2u);
  EXPECT_EQ(e.api_key, "sk-123");
  EXPECT_EQ(e.adapter.model, "Qwen3-8B");
  EXPECT_EQ(e.load_balancer, engine::LoadBalancer::least_inflight);
}

TEST(Providers, EachBrokenFieldHasItsOwnMessageWithFileLineAndColumn) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  const Case cases[] = {
      {"providers:\n  - id: a\n    model_name: m\n",
       "providers.yaml:2:5: providers[0] (a).base_url: missing: give base_url: "
       "http://host:8000/v1"},
      {"providers:\n  - id: a\n    base_url: ftp://x\n",
       "providers.yaml:3:15: providers[0] (a).base_url: 'ftp://x' is not an http(s) URL"},
      {"providers:\n  - id: a\n    base_url: http://x\n    load_balancer: fastest\n",
       "providers.yaml:4:20: providers[0] (a).load_balancer: 'fastest': expected rr, "
       "least-inflight or random"},
      {"providers:\n  - id: a\n    base_url: http://x\n    bogus: 1\n",
       "providers.yaml:4:5: providers[0].bogus: unknown field"},
      {"providers:\n  - id: a\n    sim: h100\n",
       "providers.yaml:3:10: providers[0] (a).sim: unknown preset 'h100'"},
      {"providers:\n  - id: a\n    base_url: http://x\n    api: grpc\n",
       "providers.yaml:4:10: providers[0] (a).api: 'grpc': expected tgi, openai, openai-chat, "
       "llamacpp, openai-responses, anthropic, embeddings or rerank"},
      {"providers:\n  - id: a\n    base_url: http://x\n    launch: {command: run}\n",
       "providers.yaml:4:13: providers[0] (a).launch.ready_url: missing"},
      {"providers:\n  - id: a\n    base_url: http://x\n    launch: {ready_url: "
       "'http://x/health'}\n",
       "providers.yaml:4:13: providers[0] (a).launch.command: missing"},
      {"providers:\n  - id: a\n    base_url: http://x\n    launch: {command: c, ready_url: "
       "'http://x/h', ready_timeout: soon}\n",
       "providers[0] (a).launch.ready_timeout: 'soon' is not a duration"},
      {"providers:\n  - id: a\n    base_url: http://x\n  - id: a\n    base_url: http://y\n",
       "providers.yaml:4:5: providers[1].id: 'a' is used twice"},
      {"providers:\n  - base_url: http://x\n", "providers.yaml:2:5: providers[0]: has no id"},
      {"providers:\n  - id: a\n    sim: tgi\n    base_url: http://x\n",
       "providers[0] (a).sim: give either sim: or base_url/endpoints, not both"},
      {"providers:\n  - id: a\n    base_url: http://x\n    endpoints: [http://y, 'nope']\n",
       "providers.yaml:4:27: providers[0] (a).endpoints[1]: 'nope' is not an http(s) URL"},
      {"providers:\n  - id: a\n    base_url: http://x\n    headers: {Bad Name: v}\n",
       "providers[0] (a).headers.Bad Name: header names have no spaces"},
      {"providers:\n  - id: a\n    base_url: http://x\n    api_key: k\n    api_key_env: K\n",
       "providers[0] (a).api_key_env: api_key and api_key_env exclude each other"},
      {"providers: []\n", "providers.yaml:1:12: providers: expected a non-empty list"},
  };
  for (const auto& c : cases) EXPECT_THAT(error_of(c.yaml), HasSubstr(c.message)) << c.yaml;
}

TEST(Providers, FileErrorsNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "sb_providers_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "p.yaml").string();
  std::ofstream(path) << "providers:\n  - id: a\n    base_url: [http://x\n";
  try {
    load_providers_file(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path + ":"));
    EXPECT_THAT(e.what(), HasSubstr("YAML syntax error"));
  }
  // acs-bench writes a bare list too.
  std::ofstream(path) << "- id: a\n  base_url: http://127.0.0.1:1\n";
  EXPECT_EQ(load_providers_file(path).size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(Providers, ApiKeyEnvMustBeSet) {
  const auto ps =
      parse("providers:\n  - id: a\n    base_url: http://x\n    api_key_env: SB_TEST_UNSET_KEY\n");
  ::unsetenv("SB_TEST_UNSET_KEY");
  engine::EngineConfig e;
  try {
    apply_provider(ps[0], {}, e);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_THAT(err.what(), HasSubstr("api_key_env SB_TEST_UNSET_KEY: the variable is not set"));
  }
  ::setenv("SB_TEST_UNSET_KEY", "sekrit", 1);
  apply_provider(ps[0], {}, e);
  EXPECT_EQ(e.api_key, "sekrit");
}

// `sim:` as a catalog map (sim/catalog.h): read, checked, and turned into the run's SimTarget
// the way plan_runner does.
TEST(Providers, SimCatalogMapRoundTripsToSimTarget) {
  const auto ps = parse(R"(providers:
  - id: h100-vllm
    sim: {engine: vllm, gpu: h100, model: LLAMA-3.1-8B, tp: 1, dtype: fp8}
    sim_replicas: 2
  - id: defaults
    sim: {model: qwen2.5-7b}
  - id: tgi
    sim: tgi
)");
  ASSERT_EQ(ps.size(), 3u);
  ASSERT_TRUE(ps[0].sim_choice.has_value());
  const sim::SimChoice& ch = *ps[0].sim_choice;
  EXPECT_EQ(ch.engine, "vllm");
  EXPECT_EQ(ch.gpu, "H100");  // spelled as the catalog spells it
  EXPECT_EQ(ch.model, "llama-3.1-8b");
  EXPECT_EQ(ch.dtype, "fp8");
  EXPECT_EQ(ch.tp, 1);
  EXPECT_EQ(ps[0].sim, "vllm-h100-llama-3.1-8b-fp8-tp1");
  EXPECT_EQ(ps[0].sim_replicas, 2);
  ASSERT_TRUE(ps[1].sim_choice.has_value());
  EXPECT_EQ(ps[1].sim, "tgi-1.x-a10g-qwen2.5-7b-fp16-tp1");
  EXPECT_FALSE(ps[2].sim_choice.has_value());
  EXPECT_EQ(ps[2].sim, "tgi");

  SimTarget t;  // as plan_runner fills it
  t.preset = ps[0].sim;
  t.choice = ps[0].sim_choice;
  t.replicas = ps[0].sim_replicas;
  const sim::SimConfig c0 = sim_config_of(t, 0);
  const sim::SimConfig c1 = sim_config_of(t, 1);
  EXPECT_EQ(c0.gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c0.model.name, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(c0.model.dtype, "fp8");
  EXPECT_DOUBLE_EQ(c0.gpu.flops, 1979e12);
  EXPECT_DOUBLE_EQ(sim::CostModel(c0).weights_bytes(), 8030261248.0);
  EXPECT_EQ(c1.server.seed, c0.server.seed + 1);
  EXPECT_EQ(c0.server.preset, t.preset);
  // The same as the catalog's own config of the choice.
  EXPECT_EQ(c0.sched.max_total_tokens, sim::config_of(ch).sched.max_total_tokens);
}

TEST(Providers, SimCatalogMapErrorsNameTheFieldAndTheKnownNames) {
  struct Case {
    std::string yaml, message;
  };
  const Case cases[] = {
      {"providers:\n  - id: a\n    sim: {gpu: B200}\n",
       "providers.yaml:3:10: providers[0] (a).sim: unknown GPU 'B200' (known: A10G, L4, L40S, "
       "A100, H100, H200)"},
      {"providers:\n  - id: a\n    sim: {engine: sglang}\n",
       "providers[0] (a).sim: unknown engine 'sglang' (known: tgi-1.x, vllm, trtllm, pytorch, "
       "fastapi)"},
      {"providers:\n  - id: a\n    sim: {model: gpt-5}\n", "unknown model 'gpt-5' (known: "},
      {"providers:\n  - id: a\n    sim: {dtype: fp4}\n", "unknown dtype 'fp4' (known: "},
      {"providers:\n  - id: a\n    sim: {gpu: H100, size: 2}\n",
       "providers[0] (a).sim.size: unknown field"},
      {"providers:\n  - id: a\n    sim: {gpu: H100, tp: 16}\n",
       "providers[0] (a).sim.tp: at most 8 GPUs"},
      {"providers:\n  - id: a\n    sim: {gpu: A10G, model: llama-2-70b}\n",
       "llama-2-70b fp16 on 1x A10G does not fit: weights 137.95 GB"},
      {"providers:\n  - id: a\n    sim: {gpu: H100}\n    base_url: http://x\n",
       "providers[0] (a).sim: give either sim: or base_url/endpoints, not both"},
  };
  for (const auto& c : cases) EXPECT_THAT(error_of(c.yaml), HasSubstr(c.message)) << c.yaml;
}

// A plan whose provider is a catalog simulator, run in virtual time: summary.json names the
// choice (config.sim_gpu, ...), so reports can.
TEST(Providers, ACatalogProvidersRunsRecordTheChoice) {
  const auto dir = std::filesystem::temp_directory_path() / "sb_providers_catalog_run";
  std::filesystem::remove_all(dir);
  const PlanRuns plan = cli::read_plan(R"(name: catalog
providers:
  - {id: h100, sim: {engine: vllm, gpu: H100, model: llama-3.1-8b, dtype: fp8}}
defaults: {api: openai, input_length: 64, output_length: 8}
stages:
  - {name: one, kind: baseline, concurrency: 2, num_requests: 6}
)",
                                       "plan.yaml");
  PredictExecutor exec;
  PlanRunOptions o;
  o.output_dir = dir.string();
  o.quiet = true;
  o.executor = &exec;
  EXPECT_EQ(run_plan(plan, o), 0);
  int summaries = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (f.path().filename() != "summary.json") continue;
    ++summaries;
    const auto j = nlohmann::json::parse(std::ifstream(f.path()));
    const auto& cfg = j["config"];
    EXPECT_EQ(cfg["sim_gpu"], "H100");
    EXPECT_EQ(cfg["sim_model"], "llama-3.1-8b");
    EXPECT_EQ(cfg["sim_engine"], "vllm");
    EXPECT_EQ(cfg["sim_dtype"], "fp8");
    EXPECT_EQ(cfg["sim_tp"], 1);
    EXPECT_EQ(cfg["sim_preset"], "vllm-h100-llama-3.1-8b-fp8-tp1");
    EXPECT_EQ(j["run"]["requests"]["ok"], 6);
  }
  EXPECT_EQ(summaries, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb::plan
