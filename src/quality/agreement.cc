#include "quality/agreement.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "quality/request_quality.h"

namespace sb::quality {
namespace {

std::string head(std::string_view s, size_t max_bytes = 80) {
  std::string_view cut_s = s;
  if (s.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    cut_s = s.substr(0, cut);
  }
  std::string out;
  for (char c : cut_s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return s.size() > max_bytes ? out + "..." : out;
}

constexpr const char* kMetrics[] = {"identical", "exact_match", "bleu", "chrf", "rouge_l"};

}  // namespace

Agreement compute_agreement(const std::vector<RunOutput>& a, const std::vector<RunOutput>& b,
                            Tokenize mode, size_t top) {
  std::map<uint64_t, const RunOutput*> by_id;
  for (const RunOutput& o : b) by_id[o.id] = &o;
  Agreement r;
  QualityTotals totals;
  int64_t identical = 0, abs_diff_sum = 0;
  std::vector<DivergentPair> divergent;
  for (const RunOutput& x : a) {
    auto it = by_id.find(x.id);
    if (it == by_id.end()) {
      r.only_a += x.ok ? 1 : 0;
      r.failed += x.ok ? 0 : 1;
      continue;
    }
    const RunOutput& y = *it->second;
    by_id.erase(it);
    if (!x.ok || !y.ok) {
      ++r.failed;
      continue;
    }
    ++r.pairs;
    const RequestQuality q = score_request(y.text, x.text, mode);
    totals.add(q);
    if (x.text.empty()) ++r.empty_a;
    if (x.text == y.text) ++identical;
    const int64_t diff = std::llabs(y.output_tokens - x.output_tokens);
    abs_diff_sum += diff;
    r.token_count_differs += diff > 0 ? 1 : 0;
    r.max_abs_token_diff = std::max(r.max_abs_token_diff, diff);
    if (x.text != y.text)
      divergent.push_back(
          {x.id, q.bleu, q.chrf, x.output_tokens, y.output_tokens, head(x.text), head(y.text)});
  }
  for (const auto& [id, o] : by_id) {
    r.only_b += o->ok ? 1 : 0;
    r.failed += o->ok ? 0 : 1;
  }
  if (const auto c = totals.corpus()) {
    r.exact_match = c->exact_match;
    r.bleu = c->bleu;
    r.chrf = c->chrf;
    r.rouge_l = c->rouge_l;
    r.identical = static_cast<double>(identical) / static_cast<double>(r.pairs);
    r.mean_abs_token_diff = static_cast<double>(abs_diff_sum) / static_cast<double>(r.pairs);
  }
  std::sort(divergent.begin(), divergent.end(), [](const auto& p, const auto& q) {
    if (p.bleu != q.bleu) return p.bleu < q.bleu;
    if (p.chrf != q.chrf) return p.chrf < q.chrf;
    return p.id < q.id;
  });
  if (divergent.size() > top) divergent.resize(top);
  r.most_divergent = std::move(divergent);
  return r;
}

AgreementGate parse_agreement_gate(std::string_view spec) {
  const auto colon = spec.find(':');
  const std::string names = "identical, exact_match, rouge_l (0..1), bleu, chrf (0..100)";
  if (colon == std::string_view::npos)
    throw usage_error(
        fmt::format("--fail-below '{}': use METRIC:VALUE, METRIC one of {}", spec, names));
  AgreementGate g{std::string(spec.substr(0, colon)), 0};
  if (std::find(std::begin(kMetrics), std::end(kMetrics), g.metric) == std::end(kMetrics))
    throw usage_error(fmt::format("--fail-below '{}': unknown metric '{}'; use one of {}", spec,
                                  g.metric, names));
  const std::string value(spec.substr(colon + 1));
  char* end = nullptr;
  g.min = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(g.min >= 0))
    throw usage_error(fmt::format("--fail-below '{}': '{}' is not a number >= 0", spec, value));
  const bool fraction = g.metric != "bleu" && g.metric != "chrf";
  if (fraction && g.min > 1)
    throw usage_error(
        fmt::format("--fail-below '{}': {} is a fraction between 0 and 1 (e.g. {}:0.95)", spec,
                    g.metric, g.metric));
  return g;
}

double agreement_metric(const Agreement& a, std::string_view m) {
  if (m == "identical") return a.identical;
  if (m == "exact_match") return a.exact_match;
  if (m == "bleu") return a.bleu;
  if (m == "chrf") return a.chrf;
  return a.rouge_l;
}

std::vector<std::string> failed_gates(const Agreement& a, const std::vector<AgreementGate>& gates) {
  std::vector<std::string> out;
  for (const auto& g : gates) {
    const double v = agreement_metric(a, g.metric);
    if (a.pairs == 0 || v < g.min)
      out.push_back(fmt::format("{} {:.4g} is below {:g}", g.metric, v, g.min));
  }
  return out;
}

std::vector<std::string> fingerprint_differences(const nlohmann::json& sa,
                                                 const nlohmann::json& sb) {
  using nlohmann::json;
  auto at = [](const json& s, const char* a, const char* b) -> json {
    if (!s.contains("config") || !s["config"].is_object()) return nullptr;
    const json& c = s["config"];
    if (!c.contains(a) || !c[a].is_object()) return nullptr;
    return b ? (c[a].contains(b) ? c[a][b] : json(nullptr)) : c[a];
  };
  std::vector<std::string> diffs;
  const json wa = at(sa, "workload", nullptr), wb = at(sb, "workload", nullptr);
  json keys = json::object();
  if (wa.is_object())
    for (auto it = wa.begin(); it != wa.end(); ++it) keys[it.key()] = true;
  if (wb.is_object())
    for (auto it = wb.begin(); it != wb.end(); ++it) keys[it.key()] = true;
  for (auto it = keys.begin(); it != keys.end(); ++it) {
    const json va = wa.is_object() && wa.contains(it.key()) ? wa[it.key()] : json(nullptr);
    const json vb = wb.is_object() && wb.contains(it.key()) ? wb[it.key()] : json(nullptr);
    if (va != vb)
      diffs.push_back(fmt::format("workload.{}: {} vs {}", it.key(), va.dump(), vb.dump()));
  }
  const json seed_a = at(sa, "load", "seed"), seed_b = at(sb, "load", "seed");
  if (seed_a != seed_b)
    diffs.push_back(fmt::format("load.seed (--seed): {} vs {}", seed_a.dump(), seed_b.dump()));
  return diffs;
}

nlohmann::json agreement_to_json(const Agreement& a) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : a.most_divergent)
    pairs.push_back({{"id", p.id},
                     {"bleu", p.bleu},
                     {"chrf", p.chrf},
                     {"output_tokens_a", p.tokens_a},
                     {"output_tokens_b", p.tokens_b},
                     {"output_a", p.text_a},
                     {"output_b", p.text_b}});
  return {{"pairs", a.pairs},
          {"unpaired", {{"only_a", a.only_a}, {"only_b", a.only_b}, {"failed", a.failed}}},
          {"empty_a_outputs", a.empty_a},
          {"identical", a.identical},
          {"exact_match", a.exact_match},
          {"bleu", a.bleu},
          {"chrf", a.chrf},
          {"rouge_l", a.rouge_l},
          {"output_tokens",
           {{"mean_abs_diff", a.mean_abs_token_diff},
            {"pairs_differing", a.token_count_differs},
            {"max_abs_diff", a.max_abs_token_diff}}},
          {"most_divergent", pairs}};
}

std::string agreement_to_text(const Agreement& a) {
  std::string out = fmt::format(
      "pairs            {} (unpaired: {} only in A, {} only in B, {} failed in either)\n"
      "identical        {:.1f}%\n"
      "exact_match      {:.4f}  (SQuAD-normalized)\n"
      "bleu             {:.2f}  (corpus BLEU of B against A, sacreBLEU-compatible)\n"
      "chrf             {:.2f}\n"
      "rouge_l          {:.4f}\n"
      "output tokens    mean |B - A| {:.2f}; differ in {} pairs; max {}\n",
      a.pairs, a.only_a, a.only_b, a.failed, 100 * a.identical, a.exact_match, a.bleu, a.chrf,
      a.rouge_l, a.mean_abs_token_diff, a.token_count_differs, a.max_abs_token_diff);
  if (a.empty_a > 0)
    out += fmt::format("note: {} pairs have an empty A output (an empty reference scores 0)\n",
                       a.empty_a);
  if (!a.most_divergent.empty()) {
    out += "most divergent pairs (lowest sentence BLEU):\n";
    out += fmt::format("  {:>8} {:>7} {:>7} {:>11}\n", "id", "bleu", "chrf", "tokens A/B");
    for (const auto& p : a.most_divergent) {
      out += fmt::format("  {:>8} {:>7.2f} {:>7.2f} {:>11}\n", p.id, p.bleu, p.chrf,
                         fmt::format("{}/{}", p.tokens_a, p.tokens_b));
      out += fmt::format("           A: {}\n           B: {}\n", p.text_a, p.text_b);
    }
  }
  return out;
}

}  // namespace sb::quality
