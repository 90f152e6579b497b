#include "results/request_log_read.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "results/request_jsonl.h"

namespace sb::results {

RequestLogContents read_request_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(fmt::format("cannot read {}", path));
  RequestLogContents out;
  int64_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.records.push_back(parse_request_jsonl(line));
    } catch (const std::exception& e) {
      ++out.skipped_lines;
      if (out.first_error.empty()) out.first_error = fmt::format("line {}: {}", line_no, e.what());
      out.last_line_cut = in.eof();  // getline hit the end without a newline
    }
  }
  std::sort(out.records.begin(), out.records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::vector<metrics::RequestRecord> read_back_run_records(const std::string& path) {
  RequestLogContents c = read_request_log(path);
  if (c.skipped_lines > 0)
    fmt::print(stderr, "servebench: warning: {} line(s) of {} did not read back ({})\n",
               c.skipped_lines, path, c.first_error);
  return std::move(c.records);
}

}  // namespace sb::results
