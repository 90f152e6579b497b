#include "telemetry/prom_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace sb::telemetry {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}
bool space(char c) {
  return c == ' ' || c == '\t';
}

void skip_spaces(std::string_view s, size_t& i) {
  while (i < s.size() && space(s[i])) ++i;
}

std::string_view read_name(std::string_view s, size_t& i) {
  const size_t start = i;
  if (i < s.size() && name_start(s[i]))
    while (i < s.size() && name_char(s[i])) ++i;
  return s.substr(start, i - start);
}

std::string_view read_token(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && !space(s[i])) ++i;
  return s.substr(start, i - start);
}

std::optional<double> parse_value(std::string_view t) {
  if (t == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (t == "+Inf" || t == "Inf") return std::numeric_limits<double>::infinity();
  if (t == "-Inf") return -std::numeric_limits<double>::infinity();
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::string unescape_help(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
      out += s[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool bad(PromPage& page, std::string_view line, std::string_view why) {
  ++page.bad_lines;
  if (page.errors.size() < 5)
    page.errors.push_back(fmt::format("{}: '{}'", why, line.substr(0, 120)));
  return false;
}

std::optional<PromType> type_from(std::string_view t) {
  if (t == "counter") return PromType::counter;
  if (t == "gauge") return PromType::gauge;
  if (t == "histogram") return PromType::histogram;
  if (t == "summary") return PromType::summary;
  if (t == "untyped" || t == "unknown") return PromType::untyped;
  return std::nullopt;
}

}  // namespace

bool parse_prom_line(std::string_view line, PromPage& page) {
  page.layout_id = 0;  // a line may add a sample or a type: no layout promise (prom_page.h)
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t i = 0;
  skip_spaces(line, i);
  if (i == line.size()) return true;
  if (line[i] == '#') {
    ++i;
    skip_spaces(line, i);
    const std::string_view kw = read_token(line, i);
    if (kw != "HELP" && kw != "TYPE") return true;  // a comment
    skip_spaces(line, i);
    const std::string name(read_name(line, i));
    if (name.empty()) return bad(page, line, "no metric name after # " + std::string(kw));
    skip_spaces(line, i);
    std::string_view rest = line.substr(i);
    if (kw == "HELP") {
      page.help[name] = unescape_help(rest);
      return true;
    }
    while (!rest.empty() && space(rest.back())) rest.remove_suffix(1);
    const auto t = type_from(rest);
    if (!t) return bad(page, line, "unknown metric type");
    page.types[name] = *t;
    return true;
  }
  PromSample s;
  s.name = std::string(read_name(line, i));
  if (s.name.empty()) return bad(page, line, "no metric name");
  skip_spaces(line, i);
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      skip_spaces(line, i);
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      std::string lname(read_name(line, i));
      if (lname.empty()) return bad(page, line, "bad label name");
      skip_spaces(line, i);
      if (i >= line.size() || line[i] != '=') return bad(page, line, "expected '=' after label");
      ++i;
      skip_spaces(line, i);
      if (i >= line.size() || line[i] != '"') return bad(page, line, "expected '\"'");
      ++i;
      std::string value;
      bool closed = false;
      while (i < line.size()) {  // runs of plain bytes at once, up to a quote or a backslash
        const size_t stop = std::min(line.find_first_of("\"\\", i), line.size());
        value.append(line.substr(i, stop - i));
        i = stop;
        if (i == line.size()) break;
        const char c = line[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (i < line.size()) {
          const char e = line[i++];
          value += e == 'n' ? '\n' : e;  // \\ -> \, \" -> ", \n -> newline
        } else {
          value += c;  // a backslash that ends the line: the value is unterminated
        }
      }
      if (!closed) return bad(page, line, "unterminated label value");
      s.labels.emplace_back(std::move(lname), std::move(value));
      skip_spaces(line, i);
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      return bad(page, line, "expected ',' or '}' in labels");
    }
  }
  skip_spaces(line, i);
  const auto v = parse_value(read_token(line, i));
  if (!v) return bad(page, line, "bad sample value");
  s.value = *v;
  skip_spaces(line, i);
  if (i < line.size()) {
    const std::string_view ts = read_token(line, i);
    int64_t t = 0;
    auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
    if (ec != std::errc() || p != ts.data() + ts.size()) return bad(page, line, "bad timestamp");
    s.timestamp_ms = t;
    skip_spaces(line, i);
    if (i < line.size()) return bad(page, line, "trailing text after the timestamp");
  }
  page.samples.push_back(std::move(s));
  return true;
}

void PromParser::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    if (partial_.empty()) {
      parse_prom_line(bytes.substr(0, nl), page_);
    } else {
      partial_.append(bytes.substr(0, nl));
      parse_prom_line(partial_, page_);
      partial_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
}

void PromParser::finish() {
  if (!partial_.empty()) parse_prom_line(partial_, page_);
  partial_.clear();
}

PromPage parse_prom_text(std::string_view text) {
  PromParser p;
  p.feed(text);
  p.finish();
  return p.take();
}

}  // namespace sb::telemetry
