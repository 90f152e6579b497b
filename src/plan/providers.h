#pragma once
// providers.yaml: the endpoints a plan benchmarks (docs/architecture.md study B, acs-bench's format
// plus ours). A file holds `providers:` followed by a list (a bare list is accepted too):
//
//   providers:
//     - id: vllm-a                      # acs-bench fields
//       name: vllm-a                    # the backend name in reports (default: id)
//       api_key: EMPTY                  # sent as a bearer token; never written out
//       base_url: http://host:8000/v1   # a trailing /v1 is folded into the OpenAI paths
//       model_name: Qwen3-8B
//       model_category: Qwen3
//       api: openai-chat                # ours: tgi | openai | openai-chat (default openai-chat)
//       endpoints: [http://a:8000/v1, http://b:8000/v1]   # several nodes of one service
//       load_balancer: rr               # rr | least-inflight | random
//       headers: {X-Tenant: t1}
//       api_key_env: VLLM_KEY           # the key from the environment instead
//     - id: tgi-sim
//       sim: tgi                        # an in-process simulator preset (as `prof --sim`)
//       sim_replicas: 2                 # that many simulators, load-balanced
//     - id: h100-vllm
//       sim: {engine: vllm, gpu: H100, model: llama-3.1-8b, tp: 1, dtype: fp8}   # the catalog
//       hardware: 1x H100             # comparison labels (default from the catalog choice)
//       precision: fp8
//       cost_per_hour: 12.29          # USD per hour of the provider's deployment, or
//       instance: aws:p5.48xlarge/gpu # a price-table entry (metrics/cost.h)
//       idle_power_w: 70              # per GPU (default: the simulator's, else measured)
//       flags: {extra_body: '{"top_k": 1}', endpoint: /v1/completions}   # prof's flags,
//                                     # over the plan's defaults, for this provider's runs
//     - id: local
//       base_url: http://127.0.0.1:8080
//       launch: {command: "text-generation-launcher ...", ready_url: http://127.0.0.1:8080/health,
//                ready_timeout: 10m, stop_grace: 10s}
//
// Exactly one target per provider: base_url and/or endpoints, or sim. `launch` starts the
// server before the provider's runs (cold start = launch until ready_url answers 2xx) and
// stops it after them (SIGTERM to its process group, SIGKILL after stop_grace).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/engine_config.h"
#include "plan/economics_config.h"
#include "plan/flag_settings.h"
#include "plan/yaml_fields.h"
#include "sim/catalog.h"

namespace sb::plan {

struct LaunchSpec {
  std::string command;  // run by /bin/sh -c in its own process group
  std::string ready_url;
  double ready_timeout_s = 300;
  double stop_grace_s = 10;
};

struct Provider {
  std::string id, name, api_key, model_name, model_category;
  std::string api;                     // empty: the plan's default (openai-chat)
  std::vector<std::string> endpoints;  // base_url first, then endpoints:
  engine::LoadBalancer load_balancer = engine::LoadBalancer::rr;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string api_key_env;
  std::string sim;  // simulator preset, or a catalog choice's label; empty: a real server
  // `sim: {engine, gpu, model, tp, dtype}`: a catalog simulator (sim/catalog.h), names
  // resolved; absent for `sim: PRESET`.
  std::optional<sim::SimChoice> sim_choice;
  int sim_replicas = 1;
  std::optional<LaunchSpec> launch;
  // hardware, precision, cost_per_hour, instance, idle_power_w (plan/run_economics.h): they
  // override the command's (--cost-per-hour, ...) for this provider's runs.
  EconomicsConfig economics;
  // `flags:` prof's flags for this provider's runs, over the plan's defaults (docs/plans.md):
  // its own generation parameters (extra_body), endpoint path, timeouts, ...
  std::vector<FlagSetting> flags;
  std::string where;  // FILE:LINE of its entry, for messages at run time
};

// Parses a providers list node (the value of `providers:` or a bare list). Throws
// sb::Error(usage) "FILE:LINE:COL: providers[i].FIELD: ..." for the first broken field.
std::vector<Provider> parse_providers(const YamlContext& ctx, const YAML::Node& list);
// Loads providers.yaml.
std::vector<Provider> load_providers_file(const std::string& path);
// The same from YAML text (tests, fuzzing); `file` names it in messages.
std::vector<Provider> parse_providers_text(std::string_view yaml_text, const std::string& file);

// Points `engine` at the provider: URL(s), load balancer, API, model, headers, key (from
// api_key or api_key_env; throws sb::Error(usage) when the variable is unset). For a sim
// provider, `sim_urls` are the simulators' URLs.
void apply_provider(const Provider& p, const std::vector<std::string>& sim_urls,
                    engine::EngineConfig& engine);

}  // namespace sb::plan
