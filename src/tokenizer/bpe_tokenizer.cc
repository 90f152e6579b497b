#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/regex_splitter.h"

namespace sb::tokenizer {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what) {
  throw usage_error("tokenizer.json: " + what);
}

// One pre-tokenizer step: split every piece around a regex's matches.
struct SplitStep {
  std::unique_ptr<RegexSplitter> regex;
  bool remove = false;
};

struct AddedToken {
  std::string content;
  int id = 0;
};

class BpeTokenizer final : public Tokenizer {
 public:
  explicit BpeTokenizer(const json& root);
  std::vector<int> encode(std::string_view text) const override;
  std::string decode(const std::vector<int>& ids) const override;
  std::string_view kind() const override { return "bpe"; }
  size_t vocab_size() const override { return vocab_.size(); }

 private:
  void add_pre_tokenizer(const json& p, const std::string& where);
  void encode_segment(std::string_view segment, std::vector<int>& ids) const;
  void encode_piece(std::string_view piece, std::vector<int>& ids) const;
  void push_symbol(const std::string& symbol, std::vector<int>& ids) const;
  int rank(const std::string& left, const std::string& right) const;

  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<int, std::string> id_to_token_;
  std::unordered_map<std::string, int> ranks_;  // "left right" -> merge rank
  std::vector<SplitStep> steps_;
  bool has_byte_level_ = false;
  bool add_prefix_space_ = false;
  bool ignore_merges_ = false;
  int unk_id_ = -1;
  std::vector<AddedToken> added_;                       // longest first
  std::array<std::vector<size_t>, 256> added_by_byte_;  // first byte -> indexes into added_
  std::unordered_map<int, size_t> added_by_id_;
};

std::string regex_quote(const std::string& literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void BpeTokenizer::add_pre_tokenizer(const json& p, const std::string& where) {
  if (p.is_null()) return;
  if (!p.is_object() || !p.contains("type") || !p["type"].is_string())
    bad(where + ": expected an object with a \"type\"");
  const std::string type = p["type"];
  if (type == "Sequence") {
    const json& list = p.contains("pretokenizers") ? p["pretokenizers"] : json();
    if (!list.is_array()) bad(where + ".pretokenizers: expected an array");
    for (size_t i = 0; i < list.size(); ++i)
      add_pre_tokenizer(list[i], fmt::format("{}.pretokenizers[{}]", where, i));
  } else if (type == "ByteLevel") {
    has_byte_level_ = true;
    if (p.value("add_prefix_space", false)) add_prefix_space_ = true;
    if (p.value("use_regex", true))
      steps_.push_back({std::make_unique<RegexSplitter>(kGpt2Pattern), false});
  } else if (type == "Split") {
    const json& pattern = p.contains("pattern") ? p["pattern"] : json();
    std::string regex;
    if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string())
      regex = pattern["Regex"];
    else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string())
      regex = regex_quote(pattern["String"]);
    else
      bad(where + ".pattern: expected {\"Regex\": \"...\"} or {\"String\": \"...\"}");
    if (p.value("invert", false)) bad(where + ": Split with invert: true is not supported");
    const std::string behavior = p.value("behavior", std::string("Isolated"));
    if (behavior != "Isolated" && behavior != "Removed")
      bad(fmt::format("{}.behavior '{}' is not supported (Isolated or Removed)", where, behavior));
    try {
      steps_.push_back({std::make_unique<RegexSplitter>(regex), behavior == "Removed"});
    } catch (const Error& e) {
      bad(where + ".pattern: " + e.what());
    }
  } else if (type == "Digits") {
    steps_.push_back({std::make_unique<RegexSplitter>(
                          p.value("individual_digits", false) ? R"(\p{N})" : R"(\p{N}+)"),
                      false});
  } else {
    bad(fmt::format(
        "{}: pre-tokenizer '{}' is not supported: only byte-level BPE tokenizers (ByteLevel, "
        "Split, Digits) are; for a SentencePiece-style model pass its tokenizer.model instead",
        where, type));
  }
}

BpeTokenizer::BpeTokenizer(const json& root) {
  if (!root.is_object()) bad("expected a JSON object");
  const json& model = root.contains("model") ? root["model"] : json();
  if (!model.is_object()) bad("no \"model\" object");
  const std::string type = model.contains("type") && model["type"].is_string()
                               ? model["type"].get<std::string>()
                               : std::string("BPE");
  if (type != "BPE")
    bad(
        fmt::format("model.type '{}' is not supported: expected a byte-level BPE (GPT-2, "
                    "Llama-3, Qwen style); for a SentencePiece model pass its tokenizer.model",
                    type));
  if (!model.contains("vocab") || !model["vocab"].is_object() || model["vocab"].empty())
    bad("model.vocab: expected a non-empty object of token -> id");
  for (const auto& [token, id] : model["vocab"].items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT_MAX)
      bad(fmt::format("model.vocab[\"{}\"]: expected a non-negative integer id", token));
    vocab_[token] = id.get<int>();
    id_to_token_.emplace(id.get<int>(), token);
  }
  const json& merges = model.contains("merges") ? model["merges"] : json::array();
  if (!merges.is_array()) bad("model.merges: expected an array");
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& m = merges[i];
    std::string left, right;
    if (m.is_string()) {
      const std::string s = m;
      const auto space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= s.size())
        bad(fmt::format("model.merges[{}]: expected \"left right\", got \"{}\"", i, s));
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      left = m[0];
      right = m[1];
    } else {
      bad(fmt::format("model.merges[{}]: expected \"left right\" or [\"left\", \"right\"]", i));
    }
    ranks_.emplace(left + ' ' + right, static_cast<int>(i));  // the first listing wins
  }
  ignore_merges_ = model.value("ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    const auto it = vocab_.find(model["unk_token"].get<std::string>());
    if (it != vocab_.end()) unk_id_ = it->second;
  }

  add_pre_tokenizer(root.contains("pre_tokenizer") ? root["pre_tokenizer"] : json(),
                    "pre_tokenizer");
  if (!has_byte_level_)
    bad("pre_tokenizer: no ByteLevel step, so this is not a byte-level BPE (GPT-2, Llama-3, "
        "Qwen style); for a SentencePiece-style model pass its tokenizer.model instead");

  if (root.contains("added_tokens") && !root["added_tokens"].is_null()) {
    const json& list = root["added_tokens"];
    if (!list.is_array()) bad("added_tokens: expected an array");
    for (size_t i = 0; i < list.size(); ++i) {
      const json& t = list[i];
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
          t["id"].get<int64_t>() < 0 || t["id"].get<int64_t>() > INT_MAX ||
          !t.contains("content") || !t["content"].is_string() ||
          t["content"].get<std::string>().empty())
        bad(fmt::format("added_tokens[{}]: expected {{\"id\": N, \"content\": \"...\"}}", i));
      added_.push_back({t["content"], t["id"].get<int>()});
    }
    std::stable_sort(added_.begin(), added_.end(), [](const AddedToken& a, const AddedToken& b) {
      return a.content.size() > b.content.size();
    });
    for (size_t i = 0; i < added_.size(); ++i) {
      added_by_byte_[static_cast<unsigned char>(added_[i].content[0])].push_back(i);
      added_by_id_.emplace(added_[i].id, i);
    }
  }
}

int BpeTokenizer::rank(const std::string& left, const std::string& right) const {
  std::string key;
  key.reserve(left.size() + right.size() + 1);
  key.append(left).append(1, ' ').append(right);
  const auto it = ranks_.find(key);
  return it == ranks_.end() ? INT_MAX : it->second;
}

void BpeTokenizer::push_symbol(const std::string& symbol, std::vector<int>& ids) const {
  if (const auto it = vocab_.find(symbol); it != vocab_.end()) {
    ids.push_back(it->second);
    return;
  }
  // Not in the vocabulary (an incomplete byte alphabet): one token per byte character,
  // the unknown token for a byte the vocabulary lacks too.
  const auto bytes = from_byte_level(symbol);
  if (!bytes) {
    if (unk_id_ >= 0) ids.push_back(unk_id_);
    return;
  }
  for (unsigned char b : *bytes) {
    const auto it = vocab_.find(byte_char(b));
    if (it != vocab_.end())
      ids.push_back(it->second);
    else if (unk_id_ >= 0)
      ids.push_back(unk_id_);
  }
}

void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int>& ids) const {
  if (ignore_merges_) {
    if (const auto it = vocab_.find(to_byte_level(piece)); it != vocab_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  std::vector<std::string> symbols;
  symbols.reserve(piece.size());
  for (unsigned char b : piece) symbols.push_back(byte_char(b));
  // Merge the adjacent pair of lowest rank, every occurrence left to right, until none is
  // listed (GPT-2's bpe(); the same result as tokenizers' priority queue).
  while (symbols.size() > 1) {
    int best = INT_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const int r = rank(symbols[i], symbols[i + 1]);
      if (r < best) {
        best = r;
        at = i;
      }
    }
    if (best == INT_MAX) break;
    const std::string left = symbols[at], right = symbols[at + 1];
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (size_t i = 0; i < symbols.size();) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(left + right);
        i += 2;
      } else {
        merged.push_back(std::move(symbols[i]));
        i += 1;
      }
    }
    symbols = std::move(merged);
  }
  for (const std::string& s : symbols) push_symbol(s, ids);
}

void BpeTokenizer::encode_segment(std::string_view segment, std::vector<int>& ids) const {
  if (segment.empty()) return;
  std::string prefixed;
  if (add_prefix_space_ && segment.front() != ' ') {
    prefixed = " " + std::string(segment);
    segment = prefixed;
  }
  std::vector<std::string_view> pieces{segment}, next;
  for (const SplitStep& step : steps_) {
    next.clear();
    for (std::string_view p : pieces) step.regex->split(p, step.remove, next);
    pieces.swap(next);
  }
  for (std::string_view p : pieces) encode_piece(p, ids);
}

std::vector<int> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  size_t start = 0;  // start of the pending ordinary segment
  for (size_t i = 0; i < text.size();) {
    const AddedToken* hit = nullptr;
    for (size_t k : added_by_byte_[static_cast<unsigned char>(text[i])]) {
      if (text.substr(i).starts_with(added_[k].content)) {
        hit = &added_[k];
        break;
      }
    }
    if (!hit) {
      ++i;
      continue;
    }
    encode_segment(text.substr(start, i - start), ids);
    ids.push_back(hit->id);
    i += hit->content.size();
    start = i;
  }
  encode_segment(text.substr(start), ids);
  return ids;
}

std::string BpeTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  for (int id : ids) {
    if (const auto a = added_by_id_.find(id); a != added_by_id_.end()) {
      out += added_[a->second].content;
      continue;
    }
    const auto it = id_to_token_.find(id);
    if (it == id_to_token_.end()) continue;
    if (auto bytes = from_byte_level(it->second))
      out += *bytes;
    else
      out += it->second;
  }
  return out;
}

}  // namespace

std::unique_ptr<Tokenizer> parse_bpe_tokenizer_json(std::string_view json_text) {
  const json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded()) bad("not valid JSON");
  try {
    return std::make_unique<BpeTokenizer>(root);
  } catch (const json::exception& e) {  // a field of the wrong type, read through value()
    bad(std::string("a field has the wrong type: ") + e.what());
  }
}

}  // namespace sb::tokenizer
