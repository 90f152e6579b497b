#include "common/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace sb {
namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Lower-case words of a name: split at non-alphanumerics and at camelCase humps.
std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!is_alnum(c)) {
      if (!out.back().empty()) out.emplace_back();
      continue;
    }
    const bool hump = i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
                      std::islower(static_cast<unsigned char>(name[i - 1]));
    if (hump && !out.back().empty()) out.emplace_back();
    out.back() += lower(c);
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

bool is_secret_word(const std::vector<std::string>& words, size_t i) {
  static constexpr std::array<std::string_view, 11> kParts = {
      "auth",   "token",     "secret",  "key",    "credential", "password",
      "passwd", "signature", "session", "cookie", "bearer"};
  static constexpr std::array<std::string_view, 4> kWords = {"sig", "pass", "pwd", "jwt"};
  static constexpr std::array<std::string_view, 6> kCounts = {
      "tokens", "tokenizer", "tokenizers", "tokenize", "tokenized", "tokenization"};
  const std::string& w = words[i];
  if (std::find(kCounts.begin(), kCounts.end(), w) != kCounts.end()) return false;
  if (w == "token" && i + 1 < words.size() && words[i + 1] == "ids") return false;
  if (std::find(kWords.begin(), kWords.end(), w) != kWords.end()) return true;
  return std::any_of(kParts.begin(), kParts.end(),
                     [&](std::string_view p) { return w.find(p) != std::string::npos; });
}

// Ends a URL (or a parameter value) inside free text.
bool ends_url(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '<' ||
         c == '>' || c == '`';
}

// Ends a parameter value or a token inside free text: the end of a URL, or punctuation that
// ends a clause (": ", ", ", "; ", ") ", at the end too). A URL-safe secret holds no space.
bool ends_value(const std::string& s, size_t i) {
  if (ends_url(s[i]) || s[i] == '&' || s[i] == '#') return true;
  const bool clause = s[i] == ':' || s[i] == ',' || s[i] == ';' || s[i] == ')' || s[i] == '.';
  return clause && (i + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[i + 1])));
}

bool is_param_name_char(char c) {
  return is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '~' || c == '%' || c == '[' ||
         c == ']';
}

// Every "SCHEME://USER:PASS@" -> "SCHEME://USER:***@", "SCHEME://TOKEN@" -> "SCHEME://***@".
void mask_userinfo(std::string& s) {
  for (size_t p = s.find("://"); p != std::string::npos; p = s.find("://", p + 3)) {
    const size_t start = p + 3;
    size_t end = start;
    while (end < s.size() && !ends_url(s[end]) && s[end] != '/' && s[end] != '?' && s[end] != '#')
      ++end;
    const size_t at = s.rfind('@', end == 0 ? 0 : end - 1);
    if (at == std::string::npos || at < start || at >= end) continue;
    const size_t colon = s.find(':', start);
    const size_t from = colon != std::string::npos && colon < at ? colon + 1 : start;
    s.replace(from, at - from, kMasked);
  }
}

// Every "?NAME=VALUE" (or after '&', ';', '#') whose NAME is secret -> "?NAME=***".
void mask_params(std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '?' && s[i] != '&' && s[i] != ';' && s[i] != '#') continue;
    size_t j = i + 1;
    while (j < s.size() && is_param_name_char(s[j])) ++j;
    if (j == i + 1 || j >= s.size() || s[j] != '=') continue;
    if (!is_secret_name(std::string_view(s).substr(i + 1, j - i - 1))) continue;
    size_t end = j + 1;
    while (end < s.size() && !ends_value(s, end)) ++end;
    if (end > j + 1) s.replace(j + 1, end - j - 1, kMasked);
    i = j;
  }
}

// The token after "Bearer " (any case) -> "Bearer ***".
void mask_bearer(std::string& s) {
  constexpr std::string_view kWord = "bearer ";
  for (size_t i = 0; i + kWord.size() < s.size(); ++i) {
    size_t k = 0;
    while (k < kWord.size() && lower(s[i + k]) == kWord[k]) ++k;
    if (k < kWord.size()) continue;
    const size_t from = i + kWord.size();
    size_t end = from;
    while (end < s.size() && !ends_value(s, end)) ++end;
    if (end > from) s.replace(from, end - from, kMasked);
    i = from;
  }
}

// The value after "x-api-key:" (any case, spaces allowed) -> "x-api-key: ***": the header
// that carries the key of APIs without a bearer token (Anthropic's).
void mask_api_key_header(std::string& s) {
  constexpr std::string_view kName = "x-api-key:";
  for (size_t i = 0; i + kName.size() < s.size(); ++i) {
    size_t k = 0;
    while (k < kName.size() && lower(s[i + k]) == kName[k]) ++k;
    if (k < kName.size()) continue;
    size_t from = i + kName.size();
    while (from < s.size() && s[from] == ' ') ++from;
    size_t end = from;
    while (end < s.size() && !ends_value(s, end)) ++end;
    if (end > from) s.replace(from, end - from, kMasked);
    i = from;
  }
}

}  // namespace

bool is_secret_name(std::string_view name) {
  const std::vector<std::string> words = words_of(name);
  for (size_t i = 0; i < words.size(); ++i)
    if (is_secret_word(words, i)) return true;
  return false;
}

bool is_credential_value(std::string_view value) {
  const size_t first = value.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  std::string head;
  for (char c : value.substr(first, 7)) head += lower(c);
  return head == "bearer " || head.starts_with("basic ");
}

std::string redact_url(std::string_view url) {
  std::string s(url);
  mask_userinfo(s);
  mask_params(s);
  return s;
}

std::string redact_text(std::string_view text) {
  std::string s = redact_url(text);
  mask_bearer(s);
  mask_api_key_header(s);
  return s;
}

nlohmann::json redact_secret_members(const nlohmann::json& j) {
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(redact_secret_members(v));
    return out;
  }
  if (!j.is_object()) return j;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, v] : j.items())
    out[name] = is_secret_name(name) ? nlohmann::json(kRedacted) : redact_secret_members(v);
  return out;
}

void redact_strings(nlohmann::json& j) {
  if (j.is_string()) {
    j = redact_text(j.get_ref<const std::string&>());
  } else if (j.is_array()) {
    for (auto& v : j) redact_strings(v);
  } else if (j.is_object()) {
    bool renamed = false;
    for (auto& [name, v] : j.items()) {
      redact_strings(v);
      renamed = renamed || redact_text(name) != name;
    }
    if (!renamed) return;  // the common case: no member name holds a URL
    nlohmann::json out = nlohmann::json::object();
    for (auto& [name, v] : j.items()) out[redact_text(name)] = std::move(v);
    j = std::move(out);
  }
}

}  // namespace sb
