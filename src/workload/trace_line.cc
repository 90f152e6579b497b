#include "workload/trace_line.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "workload/length_spec.h"

namespace sb::workload {
namespace {

using nlohmann::json;

constexpr double kMaxSeconds = 9.0e9;  // ~285 years: fits int64 nanoseconds

TraceLine bad(std::string why) {
  TraceLine l;
  l.error = std::move(why);
  return l;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// A finite number, the whole text.
std::optional<double> to_double(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// A token count: a whole number in [min, kMaxLengthTokens] ("512" or "512.0").
std::optional<int64_t> to_count(double v, int64_t min) {
  if (v != std::floor(v) || v < static_cast<double>(min) ||
      v > static_cast<double>(kMaxLengthTokens))
    return std::nullopt;
  return static_cast<int64_t>(v);
}

// Seconds (>= 0) of the trace's clock as whole nanoseconds.
std::optional<int64_t> seconds_to_ns(double s) {
  if (!(s >= 0) || s > kMaxSeconds) return std::nullopt;
  return std::llround(s * 1e9);
}

std::string count_problem(std::string_view name, int64_t min) {
  return fmt::format("\"{}\" is not a whole number from {} to {}", name, min, kMaxLengthTokens);
}

// `name` in `j` as a count, or the problem.
std::optional<int64_t> json_count(const json& j, const char* name, int64_t min, std::string& why) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    why = fmt::format("no \"{}\"", name);
    return std::nullopt;
  }
  std::optional<int64_t> n;
  if (it->is_number()) n = to_count(it->get<double>(), min);
  if (!n) why = count_problem(name, min);
  return n;
}

// The fields of a CSV line: split at commas outside double quotes, each trimmed and unquoted
// ("" inside quotes is one quote).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  for (auto& f : out) f = std::string(trim(f));
  return out;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// `n` digits at s[pos..] as a number; advances pos.
std::optional<int64_t> digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<TraceFormat> trace_format_from_string(std::string_view name) {
  if (name == "mooncake") return TraceFormat::mooncake;
  if (name == "burstgpt") return TraceFormat::burstgpt;
  if (name == "azure") return TraceFormat::azure;
  if (name == "jsonl") return TraceFormat::jsonl;
  return std::nullopt;
}

TraceFormat parse_trace_format(std::string_view name) {
  if (const auto f = trace_format_from_string(name)) return *f;
  throw usage_error(
      fmt::format("--trace-format '{}': unknown format; expected {}", name, kTraceFormats));
}

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::mooncake:
      return "mooncake";
    case TraceFormat::burstgpt:
      return "burstgpt";
    case TraceFormat::azure:
      return "azure";
    case TraceFormat::jsonl:
      return "jsonl";
  }
  return "jsonl";
}

TraceLine parse_trace_json_line(std::string_view line, TraceFormat format) {
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded()) return bad("not valid JSON");
  if (!j.is_object()) return bad("not a JSON object");
  const bool mooncake = format == TraceFormat::mooncake;
  const char* time_key = mooncake ? "timestamp" : "t_s";
  TraceLine out;
  TraceEntry& e = out.entry;
  const auto t = j.find(time_key);
  if (t == j.end() || t->is_null())
    return bad(fmt::format("no \"{}\" (the arrival time)", time_key));
  std::optional<int64_t> ns;
  if (t->is_number()) ns = seconds_to_ns(t->get<double>() / (mooncake ? 1e3 : 1.0));
  if (!ns)
    return bad(fmt::format("\"{}\" is not a number of {} from 0", time_key,
                           mooncake ? "milliseconds" : "seconds"));
  e.t_ns = *ns;
  std::string why;
  const auto in = json_count(j, mooncake ? "input_length" : "input_tokens", 1, why);
  if (!in) return bad(why);
  const auto outn = json_count(j, mooncake ? "output_length" : "output_tokens", 0, why);
  if (!outn) return bad(why);
  e.input_tokens = *in;
  e.output_tokens = *outn;
  if (const auto h = j.find("hash_ids"); h != j.end() && !h->is_null()) {
    if (!h->is_array()) return bad("\"hash_ids\" is not an array");
    for (const auto& id : *h) {
      if (!id.is_number_integer() || (!id.is_number_unsigned() && id.get<int64_t>() < 0))
        return bad("\"hash_ids\" holds something other than a whole number from 0");
      e.hash_ids.push_back(id.get<uint64_t>());
    }
  }
  return out;
}

std::optional<CsvColumns> parse_trace_csv_header(std::string_view line, TraceFormat format,
                                                 std::string& why) {
  const bool burst = format == TraceFormat::burstgpt;
  const char* names[3] = {burst ? "Timestamp" : "TIMESTAMP",
                          burst ? "Request tokens" : "ContextTokens",
                          burst ? "Response tokens" : "GeneratedTokens"};
  std::string_view head = line;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);  // UTF-8 byte-order mark
  const std::vector<std::string> fields = csv_fields(head);
  CsvColumns c;
  c.count = static_cast<int>(fields.size());
  int* slots[3] = {&c.timestamp, &c.input, &c.output};
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < c.count; ++i)
      if (fields[static_cast<size_t>(i)] == names[k]) *slots[k] = i;
    if (*slots[k] < 0) {
      why = fmt::format(
          "the header has no \"{}\" column; a {} trace starts with {}", names[k], to_string(format),
          burst ? "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
                : "TIMESTAMP,ContextTokens,GeneratedTokens");
      return std::nullopt;
    }
  }
  return c;
}

TraceLine parse_trace_csv_line(std::string_view line, const CsvColumns& columns,
                               TraceFormat format) {
  const std::vector<std::string> f = csv_fields(line);
  const int need = std::max({columns.timestamp, columns.input, columns.output}) + 1;
  if (static_cast<int>(f.size()) < need)
    return bad(fmt::format("{} fields, the header has {}", f.size(), columns.count));
  const std::string& ts = f[static_cast<size_t>(columns.timestamp)];
  TraceLine out;
  TraceEntry& e = out.entry;
  if (ts.empty()) return bad("no timestamp");
  std::optional<int64_t> ns;
  if (format == TraceFormat::azure) {
    ns = parse_datetime_ns(ts);
    if (!ns)
      return bad(
          fmt::format("TIMESTAMP '{}' is not a date-time like 2023-11-16 18:15:46.6805900", ts));
  } else {
    if (const auto s = to_double(ts)) ns = seconds_to_ns(*s);
    if (!ns) return bad(fmt::format("Timestamp '{}' is not a number of seconds from 0", ts));
  }
  e.t_ns = *ns;
  const bool burst = format == TraceFormat::burstgpt;
  const auto count = [&](int col, int64_t min) -> std::optional<int64_t> {
    const std::string& v = f[static_cast<size_t>(col)];
    const auto d = to_double(v);
    return d ? to_count(*d, min) : std::nullopt;
  };
  const auto in = count(columns.input, 1);
  if (!in) return bad(count_problem(burst ? "Request tokens" : "ContextTokens", 1));
  const auto o = count(columns.output, 0);
  if (!o) return bad(count_problem(burst ? "Response tokens" : "GeneratedTokens", 0));
  e.input_tokens = *in;
  e.output_tokens = *o;
  return out;
}

std::optional<int64_t> parse_datetime_ns(std::string_view s) {
  size_t p = 0;
  const auto y = digits(s, p, 4);
  if (!y || !expect(s, p, '-')) return std::nullopt;
  const auto mo = digits(s, p, 2);
  if (!mo || !expect(s, p, '-')) return std::nullopt;
  const auto d = digits(s, p, 2);
  if (!d || p >= s.size() || (s[p] != ' ' && s[p] != 'T')) return std::nullopt;
  ++p;
  const auto h = digits(s, p, 2);
  if (!h || !expect(s, p, ':')) return std::nullopt;
  const auto mi = digits(s, p, 2);
  if (!mi || !expect(s, p, ':')) return std::nullopt;
  const auto sec = digits(s, p, 2);
  if (!sec) return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *sec > 60)
    return std::nullopt;
  int64_t frac_ns = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    int64_t scale = 100'000'000;
    const size_t start = p;
    for (; p < s.size() && s[p] >= '0' && s[p] <= '9'; ++p) {
      frac_ns += (s[p] - '0') * scale;
      scale /= 10;
    }
    if (p == start) return std::nullopt;
  }
  int64_t offset_s = 0;
  if (p < s.size() && s[p] == 'Z') {
    ++p;
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    const int64_t sign = s[p] == '-' ? -1 : 1;
    ++p;
    const auto oh = digits(s, p, 2);
    if (!oh) return std::nullopt;
    expect(s, p, ':');
    const auto om = digits(s, p, 2);
    if (!om) return std::nullopt;
    offset_s = sign * (*oh * 3600 + *om * 60);
  }
  if (p != s.size()) return std::nullopt;
  const int64_t secs =
      days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *sec - offset_s;
  if (secs < 0 || secs > static_cast<int64_t>(kMaxSeconds)) return std::nullopt;
  return secs * 1'000'000'000 + frac_ns;
}

}  // namespace sb::workload
