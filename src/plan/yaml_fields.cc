#include "plan/yaml_fields.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"

namespace sb::plan {

std::string yaml_where(const YamlContext& ctx, const YAML::Node& at) {
  const YAML::Mark m = at.Mark();
  if (m.is_null()) return ctx.file;
  return fmt::format("{}:{}:{}", ctx.file, m.line + 1, m.column + 1);
}

void yaml_fail(const YamlContext& ctx, const YAML::Node& at, const std::string& field,
               const std::string& message) {
  throw usage_error(fmt::format("{}: {}: {}", yaml_where(ctx, at), field, message));
}

YAML::Node load_yaml_file(const std::string& path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw usage_error(fmt::format("{}: cannot read the file", path));
  } catch (const YAML::Exception& e) {
    throw usage_error(fmt::format("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1,
                                  e.mark.column + 1, e.msg));
  }
}

YAML::Node load_yaml_text(std::string_view text, const std::string& file) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw usage_error(fmt::format("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1,
                                  e.mark.column + 1, e.msg));
  }
}

void check_keys(const YamlContext& ctx, const YAML::Node& map, const std::string& field,
                const std::set<std::string>& allowed) {
  if (!map.IsMap()) yaml_fail(ctx, map, field, "expected a mapping (key: value lines)");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (allowed.count(key)) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    yaml_fail(ctx, kv.first, field.empty() ? key : field + "." + key,
              fmt::format("unknown field (known: {})", list));
  }
}

namespace {

// The scalar at map[key], or nullopt when absent. (YAML::Node assignment writes through to
// the node assigned to, so the result is returned by value, never assigned.)
std::optional<YAML::Node> scalar_at(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                    const std::string& field) {
  const YAML::Node n = map[key];
  if (!n) return std::nullopt;
  if (n.IsNull()) yaml_fail(ctx, n, field, "has no value");
  if (!n.IsScalar()) yaml_fail(ctx, n, field, "expected a single value, not a list or mapping");
  return n;
}

}  // namespace

std::optional<std::string> get_string(const YamlContext& ctx, const YAML::Node& map,
                                      const char* key, const std::string& field) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  return n.Scalar();
}

std::optional<int64_t> get_int(const YamlContext& ctx, const YAML::Node& map, const char* key,
                               const std::string& field, int64_t min_value) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  int64_t v = 0;
  try {
    v = parse_count(n.Scalar(), field.c_str());
  } catch (const Error&) {
    yaml_fail(ctx, n, field, fmt::format("'{}' is not a whole number (e.g. 16, 2k)", n.Scalar()));
  }
  if (v < min_value)
    yaml_fail(ctx, n, field, fmt::format("{} is below the minimum {}", v, min_value));
  return v;
}

std::optional<uint64_t> get_uint64(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                   const std::string& field) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  try {
    return parse_uint64(n.Scalar(), field);
  } catch (const Error&) {
    yaml_fail(ctx, n, field,
              fmt::format("'{}' is not a whole number from 0 to 18446744073709551615", n.Scalar()));
  }
}

std::optional<double> get_number(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                 const std::string& field, double min_value) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  double v = 0;
  try {
    size_t used = 0;
    v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    yaml_fail(ctx, n, field, fmt::format("'{}' is not a number", n.Scalar()));
  }
  if (!std::isfinite(v) || v < min_value)
    yaml_fail(ctx, n, field, fmt::format("{} is below the minimum {}", n.Scalar(), min_value));
  return v;
}

std::optional<bool> get_bool(const YamlContext& ctx, const YAML::Node& map, const char* key,
                             const std::string& field) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  bool b = false;
  if (!YAML::convert<bool>::decode(n, b))
    yaml_fail(ctx, n, field, fmt::format("'{}' is not true or false", n.Scalar()));
  return b;
}

std::optional<double> get_duration_s(const YamlContext& ctx, const YAML::Node& map, const char* key,
                                     const std::string& field) {
  const auto found = scalar_at(ctx, map, key, field);
  if (!found) return std::nullopt;
  const YAML::Node& n = *found;
  try {
    return parse_duration_s(n.Scalar(), field.c_str());
  } catch (const Error&) {
    yaml_fail(ctx, n, field,
              fmt::format("'{}' is not a duration (e.g. 500ms, 30s, 5m, 1h)", n.Scalar()));
  }
}

std::optional<std::vector<std::string>> get_string_list(const YamlContext& ctx,
                                                        const YAML::Node& map, const char* key,
                                                        const std::string& field) {
  const YAML::Node n = map[key];
  if (!n) return std::nullopt;
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar())
        yaml_fail(ctx, n[i], fmt::format("{}[{}]", field, i), "expected a single value");
      out.push_back(n[i].Scalar());
    }
  } else {
    yaml_fail(ctx, n, field, "expected a value or a list of values");
  }
  if (out.empty()) yaml_fail(ctx, n, field, "the list is empty");
  return out;
}

}  // namespace sb::plan
