#include "plan/flag_settings.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace sb::plan {
namespace {

namespace fs = std::filesystem;

const char* const kTraceWhy =
    "a trace brings its own schedule, which a plan's stages would replace: replay it with prof "
    "--trace";
const char* const kSessionWhy =
    "sessions are a closed loop of their own, which a plan's stages would replace: run them "
    "with prof --session-concurrency";
// Keys that are prof's flags but not a plan default, with where they belong instead.
const RefusedFlag kRefused[] = {
    {"scenario", "the plan's (scenarios: [chat, long, mixed])"},
    {"concurrency", "a stage's load level (stages[i].concurrency)"},
    {"request_rate", "a stage's load level (stages[i].request_rate)"},
    {"max_concurrency", "a stage's (stages[i].max_concurrency)"},
    {"num_requests", "a stage's (stages[i].num_requests or requests_per_level)"},
    {"duration", "a stage's (stages[i].duration)"},
    {"base_url", "a provider's (providers: base_url or endpoints)"},
    {"sim", "a provider's (providers: sim)"},
    {"sim_gpu", "a provider's (providers: sim: {gpu: ...})"},
    {"sim_model", "a provider's (providers: sim: {model: ...})"},
    {"sim_engine", "a provider's (providers: sim: {engine: ...})"},
    {"sim_tp", "a provider's (providers: sim: {tp: ...})"},
    {"sim_dtype", "a provider's (providers: sim: {dtype: ...})"},
    {"output_dir", "the command's (servebench run -o DIR)"},
    {"overwrite", "the command's (servebench run --overwrite)"},
    {"quiet", "the command's (servebench run -q)"},
    {"no_progress", "the command's (a plan prints one line a run)"},
    {"trace", kTraceWhy},
    {"trace_format", kTraceWhy},
    {"trace_speedup", kTraceWhy},
    {"trace_window", kTraceWhy},
    {"trace_block_tokens", kTraceWhy},
    {"session_concurrency", kSessionWhy},
    {"turns", kSessionWhy},
    {"think_time", kSessionWhy},
    {"session_header", kSessionWhy},
};
// Flags that name a file: relative to the plan's folder, and the file must exist.
const char* const kPathKeys[] = {"dataset",          "prompt_file", "tokenizer",
                                 "request_template", "ca_file",     "api_key_file"};

void check_key(const YamlContext& ctx, const YAML::Node& key_node, const std::string& key,
               const std::string& field, const std::vector<RefusedFlag>& also_refused) {
  if (key.starts_with("-"))
    yaml_fail(ctx, key_node, field,
              "write the flag's long name with underscores (input_dist for --input-dist, "
              "header for -H)");
  if (key.find('-') != std::string::npos) {
    std::string name = key;
    std::replace(name.begin(), name.end(), '-', '_');
    yaml_fail(ctx, key_node, field,
              fmt::format("write the flag's name with underscores: {}", name));
  }
  for (const RefusedFlag& r : kRefused)
    if (key == r.key) yaml_fail(ctx, key_node, field, fmt::format("not a plan setting: {}", r.why));
  for (const RefusedFlag& r : also_refused)
    if (key == r.key) yaml_fail(ctx, key_node, field, fmt::format("not a plan setting: {}", r.why));
}

// `stream` is the plan's spelling of --no-stream: one flag.
std::string_view flag_of(std::string_view key) {
  return key == "stream" ? "no_stream" : key;
}

}  // namespace

std::vector<FlagSetting> parse_flag_settings(const YamlContext& ctx, const YAML::Node& map,
                                             const std::string& field,
                                             const std::vector<std::string_view>& own,
                                             const std::vector<RefusedFlag>& also_refused) {
  std::vector<FlagSetting> out;
  if (!map) return out;
  if (!map.IsMap()) yaml_fail(ctx, map, field, "expected a mapping (key: value lines)");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(own.begin(), own.end(), key) != own.end()) continue;
    FlagSetting f;
    f.key = key;
    f.field = field + "." + key;
    check_key(ctx, kv.first, key, f.field, also_refused);
    if (find_setting(out, key)) yaml_fail(ctx, kv.first, f.field, "given twice");
    const YAML::Node v = kv.second;
    f.key_where = yaml_where(ctx, kv.first);
    f.value_where = yaml_where(ctx, v);
    if (v.IsScalar()) {
      f.values.push_back(v.Scalar());
    } else if (v.IsSequence()) {
      for (const auto& item : v) {
        if (!item.IsScalar()) yaml_fail(ctx, item, f.field, "expected a value in the list");
        f.values.push_back(item.Scalar());
      }
      if (f.values.empty())
        yaml_fail(ctx, v, f.field, "an empty list: give a value, or leave the key out");
    } else {
      yaml_fail(ctx, v, f.field, "expected a value or a list of values");
    }
    // A bare number was seconds in plans before their defaults were prof's flags; prof reads
    // it as milliseconds.
    if (key == "telemetry_interval" && v.IsScalar() &&
        v.Scalar().find_first_not_of("0123456789.") == std::string::npos)
      yaml_fail(ctx, v, f.field,
                "give a unit (1s, 500ms): a bare number is milliseconds to prof's "
                "--telemetry-interval and was seconds in plans");
    if (std::find(std::begin(kPathKeys), std::end(kPathKeys), key) != std::end(kPathKeys))
      for (std::string& value : f.values) {
        fs::path path(value);
        if (path.is_relative()) path = fs::path(ctx.file).parent_path() / path;
        if (!fs::exists(path))
          yaml_fail(ctx, v, f.field, fmt::format("'{}': no such file", path.string()));
        value = path.string();
      }
    out.push_back(std::move(f));
  }
  return out;
}

const FlagSetting* find_setting(const std::vector<FlagSetting>& settings, std::string_view key) {
  for (const FlagSetting& f : settings)
    if (flag_of(f.key) == flag_of(key)) return &f;
  return nullptr;
}

std::vector<FlagSetting> provider_settings(const std::vector<FlagSetting>& defaults,
                                           const std::vector<FlagSetting>& own) {
  static const std::vector<std::vector<std::string_view>> kSameThing = {
      {"input_length", "input_dist", "shared_prefix"},
      {"output_length", "output_dist"},
      {"dataset", "shared_prefix", "prompt_file"},
  };
  const auto replaced = [&](std::string_view key) {
    if (find_setting(own, key)) return true;
    for (const auto& group : kSameThing)
      if (std::find(group.begin(), group.end(), key) != group.end())
        for (std::string_view other : group)
          if (find_setting(own, other)) return true;
    return false;
  };
  std::vector<FlagSetting> out;
  for (const FlagSetting& f : defaults)
    if (!replaced(f.key)) out.push_back(f);
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

}  // namespace sb::plan
