#include "common/header_check.h"

#include <cctype>

#include <fmt/format.h>

namespace sb {
namespace {

bool is_token_char(unsigned char c) {
  return std::isalnum(c) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string control_problem(unsigned char c) {
  if (c == '\r' || c == '\n') return "contains a line break (CR or LF)";
  return fmt::format("contains the control character 0x{:02X}", c);
}

}  // namespace

std::string header_name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  for (const unsigned char c : name) {
    if (is_token_char(c)) continue;
    if (c < 0x20 || c == 0x7f) return control_problem(c);
    if (c == ' ' || c == '\t') return "contains a space";
    if (c >= 0x80) return "contains a non-ASCII byte";
    return fmt::format("contains '{}' (a header name is letters, digits and !#$%&'*+-.^_`|~)",
                       static_cast<char>(c));
  }
  return "";
}

std::string header_value_problem(std::string_view value) {
  for (const unsigned char c : value)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return control_problem(c);
  return "";
}

}  // namespace sb
