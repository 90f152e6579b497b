#pragma once
// prof's flags in YAML: a plan's `defaults:` and a provider's `flags:` (docs/plans.md). Read
// here for form only (a value or a list of values, no key prof's flags cannot be in a plan,
// files that exist); what they mean is prof's own parser's (cli/plan_defaults.h).
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "plan/yaml_fields.h"

namespace sb::plan {

// One entry: `prof`'s flag of that name (`input_dist` is --input-dist).
struct FlagSetting {
  std::string key;                  // as written: input_dist
  std::vector<std::string> values;  // a list gives the flag once per item
  std::string field;                // for messages: defaults.input_dist
  std::string key_where;            // FILE:LINE:COL of the key, of the value
  std::string value_where;
  bool of_provider = false;  // a provider's `flags:` (else the plan's `defaults:`)
};

// A flag that a map of settings may not hold, with where it belongs instead.
struct RefusedFlag {
  const char* key;
  const char* why;
};

// The entries of `map` (FIELD.KEY in messages) but the keys in `own` (the caller's), in the
// file's order; a file (dataset, prompt_file, ...) made relative to ctx.file's folder. Throws
// sb::Error (usage) at the first broken entry: a name with dashes, a key given twice, a flag
// that belongs to a stage, a provider's target, the command, a trace or sessions (or one of
// `also_refused`), an empty list or a mapping, a file that does not exist, a bare number for
// telemetry_interval.
std::vector<FlagSetting> parse_flag_settings(const YamlContext& ctx, const YAML::Node& map,
                                             const std::string& field,
                                             const std::vector<std::string_view>& own,
                                             const std::vector<RefusedFlag>& also_refused = {});

// The setting of `key` in `settings` (`stream` and `no_stream` are one flag); nullptr when
// absent.
const FlagSetting* find_setting(const std::vector<FlagSetting>& settings, std::string_view key);

// What a provider's runs read, in order: the defaults, less those its own flags replace, then
// its own. A provider's flag replaces the defaults' of the same flag and of the same thing:
// the prompt lengths (input_length, input_dist, shared_prefix), the output lengths
// (output_length, output_dist), the source of prompts (dataset, shared_prefix, prompt_file).
std::vector<FlagSetting> provider_settings(const std::vector<FlagSetting>& defaults,
                                           const std::vector<FlagSetting>& own);

}  // namespace sb::plan
