#include "plan/plan.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"
#include "metrics/goodput.h"

namespace sb::plan {
namespace {

namespace fs = std::filesystem;

const char* const kScenarios[] = {"chat", "long", "mixed"};
// Bounds that keep the int fields from wrapping and a plan from expanding without end.
constexpr int64_t kMaxSteps = 1000;  // ramp steps, rate_search steps

std::vector<std::string> goodput_list(const YamlContext& ctx, const YAML::Node& map,
                                      const std::string& field) {
  auto list = get_string_list(ctx, map, "goodput", field);
  if (!list) return {};
  metrics::Slo slo;
  for (size_t i = 0; i < list->size(); ++i)
    if (auto err = metrics::parse_goodput((*list)[i], slo)) {
      const YAML::Node at = map["goodput"].IsSequence() ? map["goodput"][i] : map["goodput"];
      yaml_fail(ctx, at, fmt::format("{}[{}]", field, i), *err);
    }
  return *list;
}

[[noreturn]] void fail_at(const FlagSetting& f, const std::string& message) {
  throw usage_error(fmt::format("{}: {}: {}", f.value_where, f.field, message));
}

RunDefaults parse_defaults(const YamlContext& ctx, const YAML::Node& n) {
  RunDefaults d;
  if (!n) return d;
  if (!n.IsMap()) yaml_fail(ctx, n, "defaults", "expected a mapping (key: value lines)");
  if (n["cooldown"]) d.cooldown_s = *get_duration_s(ctx, n, "cooldown", "defaults.cooldown");
  if (n["max_error_rate"]) {
    d.max_error_rate = *get_number(ctx, n, "max_error_rate", "defaults.max_error_rate", 0);
    if (d.max_error_rate > 1)
      yaml_fail(ctx, n["max_error_rate"], "defaults.max_error_rate", "a fraction between 0 and 1");
  }
  d.flags = parse_flag_settings(ctx, n, "defaults", {"cooldown", "max_error_rate"});
  return d;
}

template <typename T, typename Parse>
std::vector<T> level_list(const YamlContext& ctx, const YAML::Node& stage, const char* key,
                          const std::string& field, Parse parse) {
  const YAML::Node n = stage[key];
  std::vector<T> out;
  if (!n) return out;
  auto list = get_string_list(ctx, stage, key, field);
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node at = n.IsSequence() ? n[i] : n;
    const std::string fi = n.IsSequence() ? fmt::format("{}[{}]", field, i) : field;
    std::optional<T> v = parse((*list)[i]);
    if (!v) yaml_fail(ctx, at, fi, fmt::format("'{}' is not a positive number", (*list)[i]));
    if (!out.empty() && *v <= out.back())
      yaml_fail(ctx, at, fi, "levels must rise (list them in ascending order)");
    out.push_back(*v);
  }
  return out;
}

// stages[i].kind and .name (the name defaults to the kind; it names folders).
void parse_kind_and_name(const YamlContext& ctx, const YAML::Node& n, const std::string& f,
                         Stage& s) {
  const std::string kind = get_string(ctx, n, "kind", f + ".kind").value_or("");
  if (kind == "baseline")
    s.kind = StageKind::baseline;
  else if (kind == "sweep")
    s.kind = StageKind::sweep;
  else if (kind == "ramp")
    s.kind = StageKind::ramp;
  else if (kind == "soak")
    s.kind = StageKind::soak;
  else
    yaml_fail(ctx, n["kind"] ? n["kind"] : n, f + ".kind",
              kind.empty() ? "missing: give kind: baseline | sweep | ramp | soak"
                           : fmt::format("'{}': expected baseline, sweep, ramp or soak", kind));
  s.name = get_string(ctx, n, "name", f + ".name").value_or(kind);
  for (char c : s.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
      yaml_fail(ctx, n["name"], f + ".name",
                fmt::format("'{}': use letters, digits, '-' or '_' (it names folders)", s.name));
}

// The stage's load levels: concurrency (closed loop) or request_rate (open loop), rising.
void parse_levels(const YamlContext& ctx, const YAML::Node& n, const std::string& f, Stage& s) {
  s.concurrency = level_list<int64_t>(ctx, n, "concurrency", f + ".concurrency",
                                      [](const std::string& v) -> std::optional<int64_t> {
                                        try {
                                          const int64_t c = parse_count(v);
                                          return c >= 1 ? std::optional(c) : std::nullopt;
                                        } catch (const Error&) {
                                          return std::nullopt;
                                        }
                                      });
  s.request_rate = level_list<double>(ctx, n, "request_rate", f + ".request_rate",
                                      [](const std::string& v) -> std::optional<double> {
                                        try {
                                          return parse_rate_per_s(v);
                                        } catch (const Error&) {
                                          return std::nullopt;
                                        }
                                      });
  if (!s.concurrency.empty() && !s.request_rate.empty())
    yaml_fail(ctx, n["request_rate"], f + ".request_rate",
              "concurrency (closed loop) and request_rate (open loop) exclude each other");
}

// stages[i].saturation: the knee search's options (saturation.h); giving them turns
// until_saturation on.
void parse_saturation(const YamlContext& ctx, const YAML::Node& sat, const std::string& f,
                      Stage& s) {
  const std::string fs_ = f + ".saturation";
  check_keys(ctx, sat, fs_,
             {"min_gain", "latency_climb", "max_error_rate", "factor", "max_concurrency"});
  auto& o = s.saturation;
  o.min_gain = get_number(ctx, sat, "min_gain", fs_ + ".min_gain", 0).value_or(o.min_gain);
  o.latency_climb =
      get_number(ctx, sat, "latency_climb", fs_ + ".latency_climb", 0).value_or(o.latency_climb);
  o.max_error_rate =
      get_number(ctx, sat, "max_error_rate", fs_ + ".max_error_rate", 0).value_or(o.max_error_rate);
  o.factor = get_number(ctx, sat, "factor", fs_ + ".factor", 1.01).value_or(o.factor);
  o.max_level = static_cast<double>(
      get_int(ctx, sat, "max_concurrency", fs_ + ".max_concurrency", 1).value_or(512));
  if (!s.until_saturation) s.until_saturation = true;
}

// stages[i].rate_search: {low, high, steps}, low > 0 and high above low.
RateSearchOptions parse_rate_search(const YamlContext& ctx, const YAML::Node& rs,
                                    const std::string& f) {
  const std::string fr = f + ".rate_search";
  check_keys(ctx, rs, fr, {"low", "high", "steps"});
  RateSearchOptions o;
  o.low = get_number(ctx, rs, "low", fr + ".low", 1e-6).value_or(0);
  o.high = get_number(ctx, rs, "high", fr + ".high", 1e-6).value_or(0);
  const int64_t steps = get_int(ctx, rs, "steps", fr + ".steps", 1).value_or(4);
  if (steps > kMaxSteps)
    yaml_fail(ctx, rs["steps"], fr + ".steps", fmt::format("at most {} steps", kMaxSteps));
  o.steps = static_cast<int>(steps);
  if (o.low <= 0) yaml_fail(ctx, rs, fr + ".low", "missing: the lowest rate (requests/s) to try");
  if (o.high <= o.low)
    yaml_fail(ctx, rs["high"] ? rs["high"] : rs, fr + ".high", "missing or not above low");
  return o;
}

// Ramp: from/to/steps expand into rising concurrencies, each held for step_duration.
// The keys are errors on any other kind.
void parse_ramp(const YamlContext& ctx, const YAML::Node& n, const std::string& f, Stage& s) {
  const bool ramp_keys = n["from"] || n["to"] || n["steps"] || n["step_duration"];
  if (ramp_keys && s.kind != StageKind::ramp)
    yaml_fail(ctx,
              n["from"]    ? n["from"]
              : n["to"]    ? n["to"]
              : n["steps"] ? n["steps"]
                           : n["step_duration"],
              f, "from/to/steps/step_duration belong to kind: ramp");
  if (s.kind != StageKind::ramp) return;
  if (auto d = get_duration_s(ctx, n, "step_duration", f + ".step_duration")) s.duration_s = *d;
  if (s.concurrency.empty() && s.request_rate.empty()) {
    const auto from = get_int(ctx, n, "from", f + ".from", 1);
    const auto to = get_int(ctx, n, "to", f + ".to", 1);
    if (!from) yaml_fail(ctx, n, f + ".from", "missing: the first concurrency of the ramp");
    if (!to || *to <= *from)
      yaml_fail(ctx, n["to"] ? n["to"] : n, f + ".to", "missing or not above from");
    const int64_t steps = get_int(ctx, n, "steps", f + ".steps", 2).value_or(5);
    if (steps > kMaxSteps)
      yaml_fail(ctx, n["steps"], f + ".steps", fmt::format("at most {} steps", kMaxSteps));
    // from + (to - from) * i / (steps - 1), without overflowing (to - from) * i.
    const int64_t span = *to - *from, q = span / (steps - 1), r = span % (steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      const int64_t c = *from + q * i + r * i / (steps - 1);
      if (s.concurrency.empty() || c > s.concurrency.back()) s.concurrency.push_back(c);
    }
  }
  if (s.duration_s <= 0 && s.num_requests == 0 && s.requests_per_level == 0)
    yaml_fail(ctx, n, f + ".step_duration", "missing: how long each ramp step lasts (e.g. 30s)");
}

// Kind-specific checks and defaults: a baseline has one level (concurrency 1 and 10
// requests by default), a soak one level and a duration, and only a sweep searches.
void check_kind_rules(const YamlContext& ctx, const YAML::Node& n, const std::string& f, Stage& s) {
  if (s.kind == StageKind::baseline) {
    if (s.concurrency.empty() && s.request_rate.empty()) s.concurrency = {1};
    if (s.concurrency.size() + s.request_rate.size() > 1)
      yaml_fail(ctx, n["concurrency"] ? n["concurrency"] : n["request_rate"], f + ".concurrency",
                "a baseline has one load level (use kind: sweep for several)");
    if (s.num_requests == 0 && s.duration_s == 0 && s.requests_per_level == 0) s.num_requests = 10;
  }
  if (s.kind == StageKind::soak) {
    if (s.concurrency.size() + s.request_rate.size() != 1)
      yaml_fail(ctx, n, f + ".concurrency",
                "a soak needs one load level (concurrency: N or request_rate: R)");
    if (s.duration_s <= 0)
      yaml_fail(ctx, n["duration"] ? n["duration"] : n, f + ".duration",
                "missing: how long to hold the load (e.g. 1h)");
  }
  if (s.kind == StageKind::sweep) {
    if (s.concurrency.empty() && s.request_rate.empty() && !s.rate_search) {
      if (!s.until_saturation)
        yaml_fail(ctx, n, f + ".concurrency",
                  "missing: give concurrency: [1, 4, 8], request_rate: [1, 2, 4], "
                  "until_saturation: true or rate_search: {low, high}");
      s.concurrency = {1};
    }
    if (s.until_saturation && !s.request_rate.empty())
      yaml_fail(ctx, n["until_saturation"], f + ".until_saturation",
                "raises concurrency; for rates use rate_search: {low, high}");
    if (s.until_saturation && s.concurrency.size() > 1)
      s.saturation.levels.assign(s.concurrency.begin(), s.concurrency.end());
  } else if (s.until_saturation || s.rate_search) {
    yaml_fail(ctx,
              n["until_saturation"] ? n["until_saturation"]
              : n["rate_search"]    ? n["rate_search"]
                                    : n["saturation"],
              f, "saturation searches belong to kind: sweep");
  }
}

// stages[index]: checked in the order the keys are documented; the first error wins.
Stage parse_stage(const YamlContext& ctx, const YAML::Node& n, size_t index) {
  std::string f = fmt::format("stages[{}]", index);
  if (!n.IsMap()) yaml_fail(ctx, n, f, "expected a mapping with name, kind, ...");
  check_keys(
      ctx, n, f,
      {"name", "kind", "concurrency", "request_rate", "max_concurrency", "num_requests",
       "requests_per_level", "duration", "warmup", "goodput", "input_length", "output_length",
       "until_saturation", "saturation", "rate_search", "from", "to", "steps", "step_duration"});
  Stage s;
  s.where = yaml_where(ctx, n);
  parse_kind_and_name(ctx, n, f, s);
  f = fmt::format("stages[{}] ({})", index, s.name);
  parse_levels(ctx, n, f, s);
  s.max_concurrency = get_int(ctx, n, "max_concurrency", f + ".max_concurrency", 0).value_or(0);
  s.num_requests = get_int(ctx, n, "num_requests", f + ".num_requests", 1).value_or(0);
  s.requests_per_level =
      get_int(ctx, n, "requests_per_level", f + ".requests_per_level", 1).value_or(0);
  s.duration_s = get_duration_s(ctx, n, "duration", f + ".duration").value_or(0);
  if (auto w = get_int(ctx, n, "warmup", f + ".warmup", 0)) s.warmup = *w;
  s.goodput = goodput_list(ctx, n, f + ".goodput");
  if (auto v = get_int(ctx, n, "input_length", f + ".input_length", 1)) s.input_length = *v;
  if (auto v = get_int(ctx, n, "output_length", f + ".output_length", 1)) s.output_length = *v;
  s.until_saturation =
      get_bool(ctx, n, "until_saturation", f + ".until_saturation").value_or(false);
  if (const YAML::Node sat = n["saturation"]) parse_saturation(ctx, sat, f, s);
  if (const YAML::Node rs = n["rate_search"]) s.rate_search = parse_rate_search(ctx, rs, f);
  parse_ramp(ctx, n, f, s);
  check_kind_rules(ctx, n, f, s);
  if (s.num_requests == 0 && s.requests_per_level == 0 && s.duration_s <= 0)
    yaml_fail(ctx, n, f + ".num_requests",
              "missing: bound each run with num_requests: N, requests_per_level: K or duration: D");
  return s;
}

Plan parse_root(const YAML::Node& root, const std::string& file) {
  const YamlContext ctx{file};
  if (!root.IsMap()) yaml_fail(ctx, root, "plan", "expected a mapping with providers, stages, ...");
  check_keys(ctx, root, "", {"name", "providers", "scenarios", "defaults", "stages"});
  Plan p;
  p.file = file;
  p.name = get_string(ctx, root, "name", "name").value_or(fs::path(file).stem().string());
  const YAML::Node prov = root["providers"];
  if (!prov)
    yaml_fail(ctx, root, "providers", "missing: a providers.yaml path or a list of providers");
  if (prov.IsScalar()) {
    fs::path path(prov.Scalar());
    if (path.is_relative()) path = fs::path(file).parent_path() / path;
    if (!fs::exists(path))
      yaml_fail(ctx, prov, "providers", fmt::format("'{}': no such file", path.string()));
    p.providers = load_providers_file(path.string());
  } else {
    p.providers = parse_providers(ctx, prov);
  }
  if (root["scenarios"]) {
    p.scenarios = *get_string_list(ctx, root, "scenarios", "scenarios");
    for (size_t i = 0; i < p.scenarios.size(); ++i) {
      const auto& sc = p.scenarios[i];
      if (std::find(std::begin(kScenarios), std::end(kScenarios), sc) == std::end(kScenarios)) {
        const YAML::Node n = root["scenarios"];
        yaml_fail(ctx, n.IsSequence() ? n[i] : n, fmt::format("scenarios[{}]", i),
                  fmt::format("unknown scenario '{}' (use chat, long or mixed)", sc));
      }
    }
  }
  p.defaults = parse_defaults(ctx, root["defaults"]);
  // A length count next to the spec that replaces it would be dead, and a run has one source of
  // prompts (as prof's --scenario, --dataset, --shared-prefix, --prompt-file): checked with
  // what each provider's runs read (provider_settings: where its flags replace the defaults',
  // the pair is not both there).
  std::string input_spec, output_spec;  // some provider's fields, for the stages' lengths
  for (const Provider& pr : p.providers) {
    const std::vector<FlagSetting> settings = provider_settings(p.defaults.flags, pr.flags);
    const auto setting = [&](std::string_view key) { return find_setting(settings, key); };
    const FlagSetting* in = setting("input_dist");
    if (!in) in = setting("shared_prefix");
    const FlagSetting* out = setting("output_dist");
    if (const FlagSetting* n = in ? setting("input_length") : nullptr)
      fail_at(*n, fmt::format("{} gives the prompt lengths; drop input_length", in->field));
    if (const FlagSetting* n = out ? setting("output_length") : nullptr)
      fail_at(*n, fmt::format("{} gives the output lengths; drop output_length", out->field));
    if (in && input_spec.empty()) input_spec = in->field;
    if (out && output_spec.empty()) output_spec = out->field;
    const FlagSetting* source = nullptr;
    for (const char* key : {"dataset", "shared_prefix", "prompt_file"})
      if (const FlagSetting* f = setting(key)) {
        if (source)
          fail_at(*f, fmt::format("{} and {} exclude each other: give one source of prompts",
                                  source->key, f->key));
        source = f;
      }
    if (!p.scenarios.empty() && source)
      yaml_fail(ctx, root["scenarios"], "scenarios",
                fmt::format("scenarios (synthetic prompts) and {} exclude each other: give one "
                            "source of prompts",
                            source->field));
  }
  const auto dead_length = [&](const YAML::Node& at, const std::string& where) {
    if (at["input_length"] && !input_spec.empty())
      yaml_fail(ctx, at["input_length"], where + ".input_length",
                fmt::format("{} gives the prompt lengths; drop input_length", input_spec));
    if (at["output_length"] && !output_spec.empty())
      yaml_fail(ctx, at["output_length"], where + ".output_length",
                fmt::format("{} gives the output lengths; drop output_length", output_spec));
  };
  const YAML::Node stages = root["stages"];
  if (!stages || !stages.IsSequence() || stages.size() == 0)
    yaml_fail(ctx, stages ? stages : root, "stages",
              "missing: a list of stages (`- kind: baseline`)");
  for (size_t i = 0; i < stages.size(); ++i) {
    Stage s = parse_stage(ctx, stages[i], i);
    dead_length(stages[i], fmt::format("stages[{}]", i));
    for (const auto& o : p.stages)
      if (o.name == s.name)
        yaml_fail(ctx, stages[i], fmt::format("stages[{}].name", i),
                  fmt::format("'{}' is used twice; stage names must be unique", s.name));
    p.stages.push_back(std::move(s));
  }
  // The open loop's shape, without an open-loop stage to shape, would be unused.
  const bool open_loop = std::any_of(p.stages.begin(), p.stages.end(), [](const Stage& s) {
    return !s.request_rate.empty() || s.rate_search;
  });
  std::vector<const std::vector<FlagSetting>*> all = {&p.defaults.flags};
  for (const Provider& pr : p.providers) all.push_back(&pr.flags);
  for (const auto* settings : all)
    for (const char* key : {"arrival", "burstiness", "rate_pattern"})
      if (const FlagSetting* f = find_setting(*settings, key); f && !open_loop)
        throw usage_error(
            fmt::format("{}: {}: shapes open-loop stages (request_rate or rate_search), and this "
                        "plan has none",
                        f->key_where, f->field));
  return p;
}

}  // namespace

std::string_view to_string(StageKind k) {
  switch (k) {
    case StageKind::baseline:
      return "baseline";
    case StageKind::sweep:
      return "sweep";
    case StageKind::ramp:
      return "ramp";
    case StageKind::soak:
      return "soak";
  }
  return "baseline";
}

Plan load_plan_file(const std::string& path) {
  return parse_root(load_yaml_file(path), path);
}

Plan parse_plan(const std::string& yaml_text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw usage_error(fmt::format("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1,
                                  e.mark.column + 1, e.msg));
  }
  return parse_root(root, file);
}

}  // namespace sb::plan
