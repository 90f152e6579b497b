#pragma once
// Reading YAML config files (providers.yaml, plans) with one precise message per broken
// field: "FILE:LINE:COL: FIELD: what is wrong (and the fix)". Every error is an
// sb::Error(usage) (exit code 2). Lines and columns are 1-based (yaml-cpp's Mark + 1).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace sb::plan {

// Where a node came from, for messages.
struct YamlContext {
  std::string file;  // as given by the user
};

[[noreturn]] void yaml_fail(const YamlContext& ctx, const YAML::Node& at, const std::string& field,
                            const std::string& message);
// "FILE:LINE:COL" of a node (or FILE when it has no mark).
std::string yaml_where(const YamlContext& ctx, const YAML::Node& at);

// Loads a YAML file; a syntax error becomes "FILE:LINE:COL: YAML syntax error: ...".
YAML::Node load_yaml_file(const std::string& path);
// The same for YAML text; `file` names it in messages.
YAML::Node load_yaml_text(std::string_view text, const std::string& file);

// Unknown keys of a mapping are errors (a typo must not be silently ignored).
void check_keys(const YamlContext& ctx, const YAML::Node& map, const std::string& field,
                const std::set<std::string>& allowed);

// Scalar readers: nullopt when the key is absent; errors name `field` (e.g.
// "stages[1].concurrency").
std::optional<std::string> get_string(const YamlContext& ctx, const YAML::Node& map,
                                      const char* key, const std::string& field);
std::optional<int64_t> get_int(const YamlContext& ctx, const YAML::Node& map, const char* key,
                               const std::string& field, int64_t min_value);
// 0..2^64-1, every digit kept (seeds; common/units.h parse_uint64): no multipliers.
std::optional<uint64_t> get_uint64(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                   const std::string& field);
std::optional<double> get_number(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                 const std::string& field, double min_value);
std::optional<bool> get_bool(const YamlContext& ctx, const YAML::Node& map, const char* key,
                             const std::string& field);
// A duration such as "30s", "5m", "1h", "500ms" or a number of seconds.
std::optional<double> get_duration_s(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                     const std::string& field);
// A list of scalars, or one scalar taken as a one-element list.
std::optional<std::vector<std::string>> get_string_list(const YamlContext& ctx,
                                                        const YAML::Node& map, const char* key,
                                                        const std::string& field);

}  // namespace sb::plan
