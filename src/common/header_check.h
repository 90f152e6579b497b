#pragma once
// What may go into a request header: servebench writes header names and values (and the API
// key, as "Authorization: Bearer KEY") verbatim into the request head, so a line break in one
// would end the header and start another (header injection). Pure checks; the callers name the
// flag or the providers.yaml field and never echo the value (it may be a secret).
#include <string>
#include <string_view>

namespace sb {

// "" when `name` is a valid header name (RFC 9110 5.6.2 token: letters, digits and
// !#$%&'*+-.^_`|~), else what is wrong ("is empty", "contains a space", ...).
std::string header_name_problem(std::string_view name);

// "" when `value` holds no control character (a tab is allowed), else what is wrong
// ("contains a line break (CR or LF)", "contains the control character 0x07", ...).
std::string header_value_problem(std::string_view value);

}  // namespace sb
