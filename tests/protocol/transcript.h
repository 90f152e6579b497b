#pragma once
// Test helper: the data payloads of an SSE transcript (LF line ends, events
// separated by a blank line, "data:" with or without one space). A minimal
// stand-in for sb::sse::Parser, which test_protocol does not link.
#include <string>
#include <string_view>
#include <vector>

namespace sb::protocol::testing {

inline std::vector<std::string> sse_payloads(std::string_view stream) {
  std::vector<std::string> out;
  std::string data;
  bool has_data = false;
  while (!stream.empty()) {
    const std::size_t eol = stream.find('\n');
    const std::string_view line = stream.substr(0, eol);
    stream.remove_prefix(eol == std::string_view::npos ? stream.size() : eol + 1);
    if (line.empty()) {
      if (has_data) out.push_back(data);
      data.clear();
      has_data = false;
    } else if (line.substr(0, 5) == "data:") {
      std::string_view value = line.substr(5);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (has_data) data += '\n';
      data += value;
      has_data = true;
    }
  }
  return out;
}

}  // namespace sb::protocol::testing
