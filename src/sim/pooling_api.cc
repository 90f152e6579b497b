#include "sim/pooling_api.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/image_bytes.h"
#include "common/splitmix64.h"
#include "sim/api_internal.h"

namespace sb::sim {
namespace {

using nlohmann::json;

HttpError bad(std::string message) {
  return detail::fail(ApiKind::completions, 400, std::move(message));
}

// Checks an image URL; the error names input `i`.
std::optional<HttpError> check_image(std::string_view url, size_t i) {
  if (url.starts_with("http://") || url.starts_with("https://")) return std::nullopt;
  const size_t comma = url.find(',');
  if (!url.starts_with("data:") || comma == std::string_view::npos ||
      url.substr(0, comma).find(";base64") == std::string_view::npos)
    return bad(
        fmt::format("input[{}]: an image must be a data: URL with base64 bytes "
                    "(data:image/png;base64,...) or an http(s) URL",
                    i));
  const auto bytes = base64_decode(url.substr(comma + 1));
  if (!bytes) return bad(fmt::format("input[{}]: the image's data is not valid base64", i));
  if (!image_type_of_bytes(*bytes))
    return bad(fmt::format(
        "input[{}]: not an image (its bytes start with no PNG, JPEG, GIF or WebP signature)", i));
  return std::nullopt;
}

// One embeddings input entry: its tokens, or the error.
std::variant<int64_t, HttpError> input_tokens(const json& v, size_t i, const SimConfig& cfg,
                                              int64_t& images) {
  if (v.is_string())
    return count_text_tokens(v.get_ref<const std::string&>(), cfg.text.chars_per_token);
  if (v.is_array()) {
    for (const auto& t : v)
      if (!t.is_number_integer())
        return bad(fmt::format("input[{}]: a token-id array holds integers only", i));
    return static_cast<int64_t>(v.size());
  }
  if (v.is_object()) {
    if (auto it = v.find("image"); it != v.end() && it->is_string()) {
      if (auto err = check_image(it->get_ref<const std::string&>(), i)) return *err;
      ++images;
      return cfg.text.image_tokens;
    }
    if (auto it = v.find("text"); it != v.end() && it->is_string())
      return count_text_tokens(it->get_ref<const std::string&>(), cfg.text.chars_per_token);
  }
  return bad(fmt::format(
      "input[{}]: expected a string, a token-id array, {{\"text\": ...}} or {{\"image\": URL}}",
      i));
}

std::optional<HttpError> check_length(const PoolingRequest& r, const SimConfig& cfg) {
  for (size_t i = 0; i < r.tokens.size(); ++i)
    if (r.tokens[i] > cfg.sched.max_total_tokens)
      return bad(fmt::format(
          "This model's maximum context length is {} tokens. However, you requested {} tokens "
          "in input[{}]. Please reduce the length of the input.",
          cfg.sched.max_total_tokens, r.tokens[i], i));
  return std::nullopt;
}

std::variant<PoolingRequest, HttpError> parse_embeddings(const json& j, PoolingRequest r,
                                                         const SimConfig& cfg) {
  auto it = j.find("input");
  if (it == j.end()) return bad("'input' is required");
  const json& in = *it;
  std::vector<const json*> items;
  // A flat token-id array is one input; an array of anything else is a batch.
  if (in.is_string() || (in.is_array() && !in.empty() && in.front().is_number_integer())) {
    items.push_back(&in);
  } else if (in.is_array()) {
    for (const auto& v : in) items.push_back(&v);
  } else {
    return bad("'input' must be a string or an array");
  }
  if (items.empty()) return bad("'input' is empty");
  for (size_t i = 0; i < items.size(); ++i) {
    auto t = input_tokens(*items[i], i, cfg, r.images);
    if (auto* e = std::get_if<HttpError>(&t)) return *e;
    r.tokens.push_back(std::get<int64_t>(t));
  }
  if (auto f = j.find("encoding_format"); f != j.end() && !f->is_null()) {
    if (!f->is_string() || (*f != "float" && *f != "base64"))
      return bad("'encoding_format' must be \"float\" or \"base64\"");
    r.base64 = *f == "base64";
  }
  return r;
}

std::variant<PoolingRequest, HttpError> parse_rerank(const json& j, PoolingRequest r,
                                                     const SimConfig& cfg) {
  auto q = j.find("query");
  if (q == j.end() || !q->is_string() || q->get_ref<const std::string&>().empty())
    return bad("'query' is required: a non-empty string");
  const int64_t query_tokens =
      count_text_tokens(q->get_ref<const std::string&>(), cfg.text.chars_per_token);
  auto d = j.find("documents");
  if (d == j.end() || !d->is_array() || d->empty())
    return bad("'documents' is required: a non-empty array");
  for (size_t i = 0; i < d->size(); ++i) {
    const json& doc = (*d)[i];
    const json* text = doc.is_string() ? &doc : nullptr;
    if (doc.is_object())
      if (auto t = doc.find("text"); t != doc.end() && t->is_string()) text = &*t;
    if (!text) return bad(fmt::format("documents[{}]: expected a string or {{\"text\": ...}}", i));
    r.tokens.push_back(query_tokens + count_text_tokens(text->get_ref<const std::string&>(),
                                                        cfg.text.chars_per_token));
  }
  r.top_n = static_cast<int64_t>(r.tokens.size());
  if (auto t = j.find("top_n"); t != j.end() && !t->is_null()) {
    if (!t->is_number_integer() || t->get<int64_t>() < 1)
      return bad("'top_n' must be a positive integer");
    r.top_n = std::min(r.top_n, t->get<int64_t>());
  }
  return r;
}

// A vector's JSON (or base64) text, cached: 16 vectors per (dim, format), picked by the seed.
const std::string& vector_text(int dim, bool base64, uint64_t seed) {
  static std::mutex mu;
  static std::map<std::tuple<int, bool, int>, std::string> cache;
  const int k = static_cast<int>(seed % 16);
  std::lock_guard lock(mu);
  std::string& text = cache[{dim, base64, k}];
  if (!text.empty()) return text;
  uint64_t state = 0x5eedULL + static_cast<uint64_t>(k);
  std::vector<float> v(static_cast<size_t>(std::max(1, dim)));
  for (float& x : v)
    x = static_cast<float>(static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53 * 0.2 -
                           0.1);
  if (base64) {
    std::string bytes(v.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), v.data(), bytes.size());  // little-endian hosts, as the servers
    text = '"' + base64_encode(bytes) + '"';
  } else {
    text = '[';
    for (size_t i = 0; i < v.size(); ++i)
      fmt::format_to(std::back_inserter(text), "{}{:.6f}", i ? "," : "", v[i]);
    text += ']';
  }
  return text;
}

}  // namespace

int64_t PoolingRequest::total_tokens() const {
  return std::accumulate(tokens.begin(), tokens.end(), int64_t{0});
}

std::variant<PoolingRequest, HttpError> parse_pooling(PoolingKind kind, std::string_view body,
                                                      const SimConfig& cfg) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("the request body is not a JSON object");
  PoolingRequest r;
  r.kind = kind;
  r.seed = detail::hash_text(body);
  if (auto m = j.find("model"); m != j.end() && m->is_string()) r.model = *m;
  auto parsed = kind == PoolingKind::embeddings ? parse_embeddings(j, std::move(r), cfg)
                                                : parse_rerank(j, std::move(r), cfg);
  if (auto* ok = std::get_if<PoolingRequest>(&parsed))
    if (auto err = check_length(*ok, cfg)) return *err;
  return parsed;
}

std::string pooling_response(const PoolingRequest& req, std::string_view model, std::string_view id,
                             int dim) {
  const std::string model_json = json(std::string(model)).dump();
  std::string out;
  auto it = std::back_inserter(out);
  if (req.kind == PoolingKind::embeddings) {
    out += R"({"object":"list","data":[)";
    for (size_t i = 0; i < req.tokens.size(); ++i) {
      fmt::format_to(it, R"({}{{"object":"embedding","index":{},"embedding":)", i ? "," : "", i);
      out += vector_text(dim, req.base64, splitmix64(req.seed + i));
      out += '}';
    }
    fmt::format_to(it, R"(],"model":{},"usage":{{"prompt_tokens":{},"total_tokens":{}}}}})",
                   model_json, req.total_tokens(), req.total_tokens());
    return out;
  }
  std::vector<std::pair<double, size_t>> scored;
  for (size_t i = 0; i < req.tokens.size(); ++i)
    scored.emplace_back(static_cast<double>(splitmix64(req.seed ^ (i + 1)) >> 11) * 0x1.0p-53, i);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  fmt::format_to(it, R"({{"id":"{}","model":{},"usage":{{"total_tokens":{}}},"results":[)", id,
                 model_json, req.total_tokens());
  for (int64_t k = 0; k < req.top_n; ++k)
    fmt::format_to(it, R"({}{{"index":{},"relevance_score":{:.6f}}})", k ? "," : "",
                   scored[static_cast<size_t>(k)].second, scored[static_cast<size_t>(k)].first);
  out += "]}";
  return out;
}

}  // namespace sb::sim
