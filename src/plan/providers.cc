#include "plan/providers.h"

#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "common/header_check.h"
#include "metrics/cost.h"
#include "net/url.h"
#include "protocol/adapter.h"
#include "sim/config.h"
#include "sim/preset_file.h"

namespace sb::plan {
namespace {

void check_url(const YamlContext& ctx, const YAML::Node& at, const std::string& field,
               const std::string& url) {
  try {
    (void)net::parse_url(url);
  } catch (const Error&) {
    yaml_fail(ctx, at, field,
              fmt::format("'{}' is not an http(s) URL without credentials or query (e.g. "
                          "http://127.0.0.1:8000/v1; a key goes in api_key_env or headers)",
                          net::url_for_messages(url)));
  }
}

// A hint for a value with a line break: a YAML `|` block keeps the final newline.
std::string block_hint(const std::string& value) {
  return value.find_first_of("\r\n") == std::string::npos
             ? ""
             : " (a YAML `|` block keeps its final newline: write the value on the key's line, "
               "or use `|-`)";
}

// `sim: PRESET`, `sim: FILE.yaml` (a preset file, sim/preset_file.h; relative to the working
// directory) or `sim: {engine: vllm, gpu: H100, model: llama-3.1-8b, tp: 1, dtype: fp8}`
// (the catalog, sim/catalog.h) of the provider mapping `parent`.
void parse_sim(const YamlContext& ctx, const YAML::Node& parent, const std::string& fi,
               Provider& p) {
  const YAML::Node n = parent["sim"];
  const std::string f = fi + ".sim";
  if (!n.IsMap()) {
    const std::string preset = get_string(ctx, parent, "sim", f).value_or("");
    try {
      (void)sim::preset_or_file_config(preset);  // a preset name or a preset file
    } catch (const Error& e) {
      if (sim::is_preset_file(preset)) yaml_fail(ctx, n, f, e.what());
      std::string names;
      for (const auto& s : sim::preset_names()) names += (names.empty() ? "" : ", ") + s;
      yaml_fail(ctx, n, f,
                fmt::format("unknown preset '{}' (use {}, or a catalog map such as {{engine: "
                            "vllm, gpu: H100, model: llama-3.1-8b}})",
                            preset, names));
    }
    p.sim = preset;
    return;
  }
  check_keys(ctx, n, f, {"engine", "gpu", "model", "tp", "dtype"});
  sim::SimChoice ch;
  ch.engine = get_string(ctx, n, "engine", f + ".engine").value_or("");
  ch.gpu = get_string(ctx, n, "gpu", f + ".gpu").value_or("");
  ch.model = get_string(ctx, n, "model", f + ".model").value_or("");
  ch.dtype = get_string(ctx, n, "dtype", f + ".dtype").value_or("");
  const int64_t tp = get_int(ctx, n, "tp", f + ".tp", 1).value_or(1);
  if (tp > 8) yaml_fail(ctx, n["tp"], f + ".tp", "at most 8 GPUs (one node)");
  ch.tp = static_cast<int>(tp);
  try {
    ch = sim::resolved(ch);
    (void)sim::config_of(ch);  // tp and memory fit
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.starts_with("sim: ")) why.erase(0, 5);
    yaml_fail(ctx, n, f, why);
  }
  p.sim = sim::label_of(ch);
  p.sim_choice = ch;
}

// hardware, precision, cost_per_hour, instance, idle_power_w of the provider mapping `n`.
void parse_economics(const YamlContext& ctx, const YAML::Node& n, const std::string& fi,
                     EconomicsConfig& ec) {
  ec.hardware = get_string(ctx, n, "hardware", fi + ".hardware").value_or("");
  ec.precision = get_string(ctx, n, "precision", fi + ".precision").value_or("");
  ec.cost_per_hour_usd = get_number(ctx, n, "cost_per_hour", fi + ".cost_per_hour", 0);
  ec.instance = get_string(ctx, n, "instance", fi + ".instance").value_or("");
  ec.idle_power_w = get_number(ctx, n, "idle_power_w", fi + ".idle_power_w", 0);
  if (!ec.instance.empty() && !metrics::find_instance(ec.instance))
    yaml_fail(ctx, n["instance"], fi + ".instance",
              fmt::format("'{}' is not in the price table (known: {}); give cost_per_hour "
                          "(USD per hour) instead",
                          ec.instance, metrics::instance_names()));
}

Provider parse_one(const YamlContext& ctx, const YAML::Node& n, size_t index) {
  const std::string f = fmt::format("providers[{}]", index);
  if (!n.IsMap()) yaml_fail(ctx, n, f, "expected a mapping with id, base_url, ...");
  check_keys(
      ctx, n, f,
      {"id",           "name",      "api_key",       "base_url",  "model_name",    "model_category",
       "api",          "endpoints", "load_balancer", "headers",   "api_key_env",   "sim",
       "sim_replicas", "launch",    "hardware",      "precision", "cost_per_hour", "instance",
       "idle_power_w", "flags"});
  Provider p;
  p.where = yaml_where(ctx, n);
  p.id = get_string(ctx, n, "id", f + ".id").value_or("");
  p.name = get_string(ctx, n, "name", f + ".name").value_or(p.id);
  if (p.id.empty()) p.id = p.name;
  if (p.id.empty()) yaml_fail(ctx, n, f, "has no id: give `id: NAME` (used to name its runs)");
  for (char c : p.id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      yaml_fail(ctx, n["id"] ? n["id"] : n, f + ".id",
                fmt::format("'{}': use letters, digits, '-', '_' or '.' (it names folders)", p.id));
  const std::string fi = fmt::format("providers[{}] ({})", index, p.id);
  p.api_key = get_string(ctx, n, "api_key", fi + ".api_key").value_or("");
  if (const std::string why = header_value_problem(p.api_key); !why.empty())
    yaml_fail(ctx, n["api_key"], fi + ".api_key",
              fmt::format("the key {}{}", why, block_hint(p.api_key)));
  p.model_name = get_string(ctx, n, "model_name", fi + ".model_name").value_or("");
  p.model_category = get_string(ctx, n, "model_category", fi + ".model_category").value_or("");
  p.api_key_env = get_string(ctx, n, "api_key_env", fi + ".api_key_env").value_or("");
  if (auto api = get_string(ctx, n, "api", fi + ".api")) {
    if (!protocol::api_from_string(*api) || *api == "generic")
      yaml_fail(ctx, n["api"], fi + ".api",
                fmt::format("'{}': expected {}", *api, protocol::api_choices(false)));
    p.api = *api;
  }
  if (auto url = get_string(ctx, n, "base_url", fi + ".base_url")) {
    check_url(ctx, n["base_url"], fi + ".base_url", *url);
    p.endpoints.push_back(*url);
  }
  if (n["endpoints"]) {
    const auto list = get_string_list(ctx, n, "endpoints", fi + ".endpoints");
    for (size_t i = 0; i < list->size(); ++i) {
      const YAML::Node at = n["endpoints"].IsSequence() ? n["endpoints"][i] : n["endpoints"];
      check_url(ctx, at, fmt::format("{}.endpoints[{}]", fi, i), (*list)[i]);
      p.endpoints.push_back((*list)[i]);
    }
  }
  if (auto lb = get_string(ctx, n, "load_balancer", fi + ".load_balancer")) {
    const auto v = engine::load_balancer_from_string(*lb);
    if (!v)
      yaml_fail(ctx, n["load_balancer"], fi + ".load_balancer",
                fmt::format("'{}': expected rr, least-inflight or random", *lb));
    p.load_balancer = *v;
  }
  if (const YAML::Node h = n["headers"]) {
    if (!h.IsMap()) yaml_fail(ctx, h, fi + ".headers", "expected a mapping `Name: value`");
    for (const auto& kv : h) {
      const std::string name = kv.first.Scalar();
      if (!kv.second.IsScalar())
        yaml_fail(ctx, kv.second, fi + ".headers." + name, "expected a single value");
      const std::string value = kv.second.Scalar();
      // Named, never echoed: the value may be a key.
      if (const std::string why = header_name_problem(name); !why.empty())
        yaml_fail(ctx, kv.first, fi + ".headers." + name,
                  fmt::format("header names have no spaces, colons or control characters; this "
                              "one {}",
                              why));
      if (const std::string why = header_value_problem(value); !why.empty())
        yaml_fail(ctx, kv.second, fi + ".headers." + name,
                  fmt::format("the value {}{}", why, block_hint(value)));
      p.headers.emplace_back(name, value);
    }
  }
  if (n["sim"]) parse_sim(ctx, n, fi, p);
  // Checked before the cast to int (2147483648 would wrap to a negative count).
  const int64_t replicas = get_int(ctx, n, "sim_replicas", fi + ".sim_replicas", 1).value_or(1);
  if (replicas > 64)
    yaml_fail(ctx, n["sim_replicas"], fi + ".sim_replicas", "at most 64 simulators");
  p.sim_replicas = static_cast<int>(replicas);
  if (n["sim_replicas"] && p.sim.empty())
    yaml_fail(ctx, n["sim_replicas"], fi + ".sim_replicas",
              "only with `sim: PRESET` or a `sim:` catalog map");
  if (const YAML::Node l = n["launch"]) {
    const std::string fl = fi + ".launch";
    check_keys(ctx, l, fl, {"command", "ready_url", "ready_timeout", "stop_grace"});
    LaunchSpec s;
    s.command = get_string(ctx, l, "command", fl + ".command").value_or("");
    if (s.command.empty())
      yaml_fail(ctx, l, fl + ".command", "missing: the shell command that starts the server");
    s.ready_url = get_string(ctx, l, "ready_url", fl + ".ready_url").value_or("");
    if (s.ready_url.empty())
      yaml_fail(ctx, l, fl + ".ready_url",
                "missing: a URL that answers 2xx once the server is ready (e.g. "
                "http://127.0.0.1:8080/health)");
    check_url(ctx, l["ready_url"], fl + ".ready_url", s.ready_url);
    if (s.ready_url.starts_with("https:"))
      yaml_fail(ctx, l["ready_url"], fl + ".ready_url", "must be http:// (probed in plain HTTP)");
    s.ready_timeout_s =
        get_duration_s(ctx, l, "ready_timeout", fl + ".ready_timeout").value_or(300);
    s.stop_grace_s = get_duration_s(ctx, l, "stop_grace", fl + ".stop_grace").value_or(10);
    if (!(s.ready_timeout_s > 0))
      yaml_fail(ctx, l["ready_timeout"], fl + ".ready_timeout", "must be positive");
    p.launch = s;
  }
  parse_economics(ctx, n, fi, p.economics);
  // Exactly one kind of target.
  if (p.endpoints.empty() && p.sim.empty())
    yaml_fail(ctx, n, fi + ".base_url",
              "missing: give base_url: http://host:8000/v1 (or endpoints: [...], or sim: tgi)");
  if (!p.endpoints.empty() && !p.sim.empty())
    yaml_fail(ctx, n["sim"], fi + ".sim", "give either sim: or base_url/endpoints, not both");
  if (p.launch && !p.sim.empty())
    yaml_fail(ctx, n["launch"], fi + ".launch", "a sim provider needs no launch command");
  if (!p.api_key.empty() && !p.api_key_env.empty())
    yaml_fail(ctx, n["api_key_env"], fi + ".api_key_env",
              "api_key and api_key_env exclude each other; give the key once");
  // The provider's own fields say these once.
  static const std::vector<RefusedFlag> kOwn = {
      {"api", "the provider's own `api:`"},
      {"model", "the provider's own `model_name:`"},
      {"header", "the provider's own `headers:`"},
      {"api_key_env", "the provider's own `api_key_env:`"},
      {"max_error_rate", "the plan's own (defaults: max_error_rate, the stability limit)"},
      {"cooldown", "the plan's own (defaults: cooldown)"},
      {"cost_per_hour", "the provider's own `cost_per_hour:`"},
      {"instance", "the provider's own `instance:`"},
      {"idle_power_w", "the provider's own `idle_power_w:`"},
      {"hardware", "the provider's own `hardware:`"},
      {"precision", "the provider's own `precision:`"},
  };
  if (const YAML::Node fl = n["flags"]) {
    p.flags = parse_flag_settings(ctx, fl, fi + ".flags", {}, kOwn);
    for (FlagSetting& f : p.flags) f.of_provider = true;
    if (find_setting(p.flags, "api_key_file") && (!p.api_key.empty() || !p.api_key_env.empty()))
      yaml_fail(ctx, fl["api_key_file"], fi + ".flags.api_key_file",
                "the provider's api_key or api_key_env gives its key already; give it once");
  }
  return p;
}

}  // namespace

std::vector<Provider> parse_providers(const YamlContext& ctx, const YAML::Node& list) {
  if (!list.IsSequence() || list.size() == 0)
    yaml_fail(ctx, list, "providers", "expected a non-empty list of providers (`- id: ...`)");
  std::vector<Provider> out;
  for (size_t i = 0; i < list.size(); ++i) {
    Provider p = parse_one(ctx, list[i], i);
    for (const auto& q : out)
      if (q.id == p.id)
        yaml_fail(ctx, list[i], fmt::format("providers[{}].id", i),
                  fmt::format("'{}' is used twice; ids must be unique", p.id));
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// A providers.yaml document: `providers: [...]` or a bare list.
std::vector<Provider> parse_providers_root(const YAML::Node& root, const std::string& file) {
  const YamlContext ctx{file};
  if (root.IsMap()) {
    check_keys(ctx, root, "", {"providers"});
    if (!root["providers"]) yaml_fail(ctx, root, "providers", "missing");
    return parse_providers(ctx, root["providers"]);
  }
  return parse_providers(ctx, root);
}

}  // namespace

std::vector<Provider> load_providers_file(const std::string& path) {
  return parse_providers_root(load_yaml_file(path), path);
}

std::vector<Provider> parse_providers_text(std::string_view yaml_text, const std::string& file) {
  return parse_providers_root(load_yaml_text(yaml_text, file), file);
}

void apply_provider(const Provider& p, const std::vector<std::string>& sim_urls,
                    engine::EngineConfig& e) {
  const std::vector<std::string>& urls = p.sim.empty() ? p.endpoints : sim_urls;
  if (urls.empty())
    throw usage_error(fmt::format("{}: provider '{}' has no endpoint", p.where, p.id));
  if (!p.api.empty()) e.adapter.api = *protocol::api_from_string(p.api);
  // The APIs whose default paths start with /v1 (OpenAI's three, Anthropic's, embeddings, rerank).
  const bool openai =
      e.adapter.api == protocol::Api::openai || e.adapter.api == protocol::Api::openai_chat ||
      e.adapter.api == protocol::Api::openai_responses ||
      e.adapter.api == protocol::Api::anthropic || protocol::is_pooling(e.adapter.api);
  auto to_url = [&](const std::string& s) {
    net::Url u = net::parse_url(s);
    // acs-bench style http://host:8000/v1: the OpenAI paths already start with /v1.
    if (openai && u.path_prefix.ends_with("/v1")) u.path_prefix.resize(u.path_prefix.size() - 3);
    return u;
  };
  e.client.url = to_url(urls[0]);
  e.extra_endpoints.clear();
  for (size_t i = 1; i < urls.size(); ++i) e.extra_endpoints.push_back(to_url(urls[i]));
  e.load_balancer = p.load_balancer;
  if (!p.model_name.empty()) e.adapter.model = p.model_name;
  for (const auto& h : p.headers) e.headers.push_back(h);
  if (!p.api_key_env.empty()) {
    const char* key = std::getenv(p.api_key_env.c_str());
    if (!key || !*key)
      throw usage_error(
          fmt::format("{}: provider '{}': api_key_env {}: the variable is not set or empty",
                      p.where, p.id, p.api_key_env));
    if (const std::string why = header_value_problem(key); !why.empty())
      throw usage_error(fmt::format(
          "{}: provider '{}': api_key_env {}: the key {}; set the variable to the key alone",
          p.where, p.id, p.api_key_env, why));
    e.api_key = key;
  } else if (!p.api_key.empty() && p.api_key != "EMPTY") {
    e.api_key = p.api_key;
  }
}

}  // namespace sb::plan
