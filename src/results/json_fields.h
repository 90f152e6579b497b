#pragma once
// Typed reads of a member of a JSON object, for readers of files that other versions (or hands)
// may have written: a member that is absent, of another type or not finite reads as nullopt.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sb::results::json_fields {

using nlohmann::json;

// j[key] when j is an object holding key, else nullptr.
inline const json* member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

inline std::optional<double> num(const json& j, const char* key) {
  const json* v = member(j, key);
  if (!v || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

// An integer exactly; a finite floating-point number truncated.
inline std::optional<int64_t> count(const json& j, const char* key) {
  const json* v = member(j, key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  const double d = v->get<double>();
  return std::isfinite(d) ? std::optional<int64_t>(static_cast<int64_t>(d)) : std::nullopt;
}

inline std::optional<std::string> text(const json& j, const char* key) {
  const json* v = member(j, key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

inline std::optional<bool> flag(const json& j, const char* key) {
  const json* v = member(j, key);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

}  // namespace sb::results::json_fields
