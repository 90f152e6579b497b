#include "quality/quality_json.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::quality {
namespace {

void put(std::string& out, double v) {
  if (std::isfinite(v))
    fmt::format_to(std::back_inserter(out), "{}", v);
  else
    out += "null";
}

[[noreturn]] void bad(const char* field) {
  throw Error(fmt::format("requests.jsonl: quality field '{}' is missing or malformed", field));
}

double number(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return 0;
  if (!it->is_number() || !std::isfinite(it->get<double>())) bad(name);
  return it->get<double>();
}

bool boolean(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_boolean()) bad(name);
  return it->get<bool>();
}

std::vector<int64_t> counts(const nlohmann::json& j, const char* name, size_t size) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_array() || it->size() != size) bad(name);
  std::vector<int64_t> v;
  for (const auto& x : *it) {
    if (!x.is_number_integer() || x.get<int64_t>() < 0) bad(name);
    v.push_back(x.get<int64_t>());
  }
  return v;
}

}  // namespace

void append_quality_json(std::string& out, const RequestQuality& q) {
  auto it = std::back_inserter(out);
  out += "{\"bleu\":";
  put(out, q.bleu);
  out += ",\"chrf\":";
  put(out, q.chrf);
  out += ",\"rouge_l\":";
  put(out, q.rouge_l);
  fmt::format_to(it, ",\"exact_match\":{},\"empty_reference\":{},\"bleu_stats\":[{},{}",
                 q.exact_match, q.empty_reference, q.bleu_stats.hyp_len, q.bleu_stats.ref_len);
  for (int64_t c : q.bleu_stats.correct) fmt::format_to(it, ",{}", c);
  for (int64_t t : q.bleu_stats.total) fmt::format_to(it, ",{}", t);
  out += "],\"chrf_stats\":[";
  for (int n = 0; n < kChrfOrder; ++n)
    fmt::format_to(it, "{}{},{},{}", n ? "," : "", q.chrf_stats.hyp[n], q.chrf_stats.ref[n],
                   q.chrf_stats.match[n]);
  out += "]}";
}

RequestQuality quality_from_json(const nlohmann::json& j) {
  if (!j.is_object()) bad("quality");
  RequestQuality q;
  q.bleu = number(j, "bleu");
  q.chrf = number(j, "chrf");
  q.rouge_l = number(j, "rouge_l");
  q.exact_match = boolean(j, "exact_match");
  q.empty_reference = boolean(j, "empty_reference");
  const auto b = counts(j, "bleu_stats", 2 + 2 * kBleuOrder);
  q.bleu_stats.hyp_len = b[0];
  q.bleu_stats.ref_len = b[1];
  for (int n = 0; n < kBleuOrder; ++n) {
    q.bleu_stats.correct[n] = b[2 + n];
    q.bleu_stats.total[n] = b[2 + kBleuOrder + n];
  }
  const auto c = counts(j, "chrf_stats", 3 * kChrfOrder);
  for (int n = 0; n < kChrfOrder; ++n) {
    q.chrf_stats.hyp[n] = c[3 * n];
    q.chrf_stats.ref[n] = c[3 * n + 1];
    q.chrf_stats.match[n] = c[3 * n + 2];
  }
  return q;
}

}  // namespace sb::quality
