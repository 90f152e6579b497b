#include "common/prom_page.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iterator>
#include <set>

#include <fmt/format.h>

namespace sb {
namespace {

void append_value(std::string& out, double v) {
  if (std::isnan(v))
    out += "NaN";
  else if (std::isinf(v))
    out += v > 0 ? "+Inf" : "-Inf";
  else
    fmt::format_to(std::back_inserter(out), "{}", v);
}

// Backslashes and line ends escaped, and double quotes too in a label value (not in HELP text).
void append_escaped(std::string& out, std::string_view text, bool quotes) {
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"' && quotes)
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

// `{a="x",b="y"}`, in the given order, values escaped.
void append_labels(std::string& out, const Labels& labels) {
  out += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ',';
    out += labels[i].first;
    out += "=\"";
    append_escaped(out, labels[i].second, true);
    out += '"';
  }
  out += '}';
}

}  // namespace

std::string_view to_string(PromType t) {
  switch (t) {
    case PromType::counter:
      return "counter";
    case PromType::gauge:
      return "gauge";
    case PromType::histogram:
      return "histogram";
    case PromType::summary:
      return "summary";
    case PromType::untyped:
      break;
  }
  return "untyped";
}

bool PromSample::operator==(const PromSample& o) const {
  const bool same_value = value == o.value || (std::isnan(value) && std::isnan(o.value));
  return name == o.name && labels == o.labels && same_value && timestamp_ms == o.timestamp_ms;
}

std::pair<std::string, PromType> PromPage::family_of(std::string_view n) const {
  if (auto it = types.find(n); it != types.end()) return {it->first, it->second};
  for (std::string_view sfx : {"_bucket", "_sum", "_count", "_total", "_created"}) {
    if (!n.ends_with(sfx)) continue;
    if (auto it = types.find(n.substr(0, n.size() - sfx.size())); it != types.end())
      return {it->first, it->second};
  }
  return {std::string(n), PromType::untyped};
}

const PromSample* PromPage::find(std::string_view name, const Labels& want) const {
  for (const PromSample& s : samples) {
    if (s.name != name) continue;
    const bool all = std::all_of(want.begin(), want.end(), [&](const auto& kv) {
      return std::find(s.labels.begin(), s.labels.end(), kv) != s.labels.end();
    });
    if (all) return &s;
  }
  return nullptr;
}

std::string_view label(const Labels& labels, std::string_view name) {
  for (const auto& [k, v] : labels)
    if (k == name) return v;
  return {};
}

std::string series_key(std::string_view name, const Labels& labels) {
  std::string out(name);
  if (labels.empty()) return out;
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  append_labels(out, sorted);
  return out;
}

std::string prom_text_of(const PromPage& page) {
  std::string out;
  out.reserve(page.samples.size() * 64);
  std::set<std::string, std::less<>> described;  // families whose HELP and TYPE are out
  for (const PromSample& s : page.samples) {
    auto [f, type] = page.family_of(s.name);
    if (!described.count(f)) {
      if (auto h = page.help.find(f); h != page.help.end()) {
        out += "# HELP " + f + ' ';
        append_escaped(out, h->second, false);
        out += '\n';
      }
      if (page.types.count(f)) out += fmt::format("# TYPE {} {}\n", f, to_string(type));
      described.insert(std::move(f));
    }
    out += s.name;
    if (!s.labels.empty()) append_labels(out, s.labels);
    out += ' ';
    append_value(out, s.value);
    if (s.timestamp_ms) fmt::format_to(std::back_inserter(out), " {}", *s.timestamp_ms);
    out += '\n';
  }
  return out;
}

PromPageFill::PromPageFill(PromPage& page) : page_(page) {}

PromPageFill::~PromPageFill() {
  if (n_ != page_.samples.size()) {
    page_.samples.erase(page_.samples.begin() + static_cast<std::ptrdiff_t>(n_),
                        page_.samples.end());
    changed_ = true;
  }
  static std::atomic<uint64_t> last_id{0};
  if (changed_ || page_.layout_id == 0) page_.layout_id = ++last_id;
}

void PromPageFill::set(std::string& to, std::string_view from) {
  if (to == from) return;
  to.assign(from);
  changed_ = true;
}

void PromPageFill::family(std::string_view name, PromType type, std::string_view help) {
  if (auto it = page_.types.find(name); it == page_.types.end()) {
    page_.types.emplace(std::string(name), type);
    changed_ = true;
  } else if (it->second != type) {
    it->second = type;
    changed_ = true;
  }
  if (help.empty()) return;
  if (auto it = page_.help.find(name); it == page_.help.end())
    page_.help.emplace(std::string(name), std::string(help));
  else if (it->second != help)
    it->second.assign(help);
}

PromSample& PromPageFill::next(std::string_view name) {
  if (n_ == page_.samples.size()) {
    page_.samples.emplace_back();
    changed_ = true;
  }
  PromSample& s = page_.samples[n_++];
  set(s.name, name);
  s.timestamp_ms.reset();
  return s;
}

void PromPageFill::sample(std::string_view name, const Labels& labels, double value) {
  PromSample& s = next(name);
  if (s.labels != labels) {
    s.labels = labels;
    changed_ = true;
  }
  s.value = value;
}

void PromPageFill::histogram(std::string_view name, const Labels& labels,
                             std::span<const std::string> le_texts,
                             std::span<const uint64_t> counts, double sum) {
  const auto count_at = [&](size_t i) { return i < counts.size() ? counts[i] : 0; };
  name_.assign(name).append("_bucket");
  uint64_t cum = 0;
  for (size_t i = 0; i <= le_texts.size(); ++i) {
    cum += count_at(i);
    PromSample& s = next(name_);
    if (s.labels.size() != labels.size() + 1) {
      s.labels.resize(labels.size() + 1);
      changed_ = true;
    }
    for (size_t l = 0; l < labels.size(); ++l) {
      set(s.labels[l].first, labels[l].first);
      set(s.labels[l].second, labels[l].second);
    }
    set(s.labels.back().first, "le");
    set(s.labels.back().second, i < le_texts.size() ? std::string_view(le_texts[i]) : "+Inf");
    s.value = static_cast<double>(cum);
  }
  name_.assign(name).append("_sum");
  sample(name_, labels, sum);
  name_.assign(name).append("_count");
  sample(name_, labels, static_cast<double>(cum));
}

}  // namespace sb
