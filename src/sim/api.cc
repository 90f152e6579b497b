#include "sim/api.h"

#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/splitmix64.h"
#include "sim/api_internal.h"
#include "sim/prefix_cache.h"

namespace sb::sim {

namespace detail {

HttpError fail(ApiKind api, int status, std::string message) {
  bool in_stream = api == ApiKind::tgi_stream && message.rfind("Input validation error", 0) == 0;
  return HttpError{status, error_body(api, status, message), in_stream, message};
}

// Text of an OpenAI chat message "content": a string or an array of parts.
std::optional<std::string> content_text(const nlohmann::json& c) {
  if (c.is_string()) return c.get<std::string>();
  if (c.is_null()) return std::string();
  if (c.is_array()) {
    std::string out;
    for (const auto& part : c) {
      if (!part.is_object()) return std::nullopt;
      auto t = part.find("text");
      if (t != part.end() && t->is_string()) out += t->get<std::string>();
    }
    return out;
  }
  return std::nullopt;
}

uint64_t hash_text(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace detail

namespace {

using detail::BodyParse;
using detail::content_text;
using detail::fail;
using detail::hash_text;
using nlohmann::json;

constexpr std::array<std::string_view, 64> kVocab = {
    " the", " and", " for", " are", " but", " not", " you", " all", " any", " can", " had",
    " her", " was", " one", " our", " out", " day", " get", " has", " him", " his", " how",
    " man", " new", " now", " old", " see", " two", " way", " who", " boy", " did", " its",
    " let", " put", " say", " she", " too", " use", " cat", " dog", " sun", " sky", " sea",
    " red", " big", " top", " run", " set", " sat", " map", " key", " log", " box", " cup",
    " pen", " air", " arm", " art", " ask", " bag", " bed", " bit", " car"};

std::string quote(std::string_view s) {
  return json(std::string(s)).dump();
}

int64_t eos_length(uint64_t text_seed, int64_t max_new, double p) {
  if (p <= 0) return max_new;
  for (int64_t i = 1; i < max_new; ++i) {
    double u =
        static_cast<double>(splitmix64(text_seed ^ (0xe05ULL + static_cast<uint64_t>(i))) >> 11) *
        0x1.0p-53;
    if (u < p) return i;
  }
  return max_new;
}

}  // namespace

std::string_view to_string(ApiKind a) {
  switch (a) {
    case ApiKind::tgi_generate:
      return "tgi_generate";
    case ApiKind::tgi_stream:
      return "tgi_generate_stream";
    case ApiKind::completions:
      return "completions";
    case ApiKind::chat:
      return "chat";
    case ApiKind::llamacpp:
      return "llamacpp_completion";
    case ApiKind::responses:
      return "responses";
    case ApiKind::anthropic:
      return "anthropic_messages";
  }
  return "?";
}

std::string_view tgi_error_type(int status) {
  switch (status) {
    case 429:
    case 503:
      return "overloaded";
    case 400:
    case 413:
    case 422:
      return "validation";
    case 408:
      return "timeout";
    case 424:
      return "generation";
    default:
      return "generation";
  }
}

namespace {
std::string_view openai_error_type(int status) {
  switch (status) {
    case 400:
      return "BadRequestError";
    case 404:
      return "NotFoundError";
    case 408:
      return "RequestTimeoutError";
    case 413:
      return "RequestEntityTooLargeError";
    case 422:
      return "UnprocessableEntityError";
    case 429:
      return "TooManyRequestsError";
    case 503:
      return "ServiceUnavailableError";
    default:
      return "InternalServerError";
  }
}
}  // namespace

std::string error_body(ApiKind api, int status, std::string_view message) {
  if (api == ApiKind::responses || api == ApiKind::anthropic)
    return detail::events_error_body(api, status, message);
  if (api == ApiKind::llamacpp)  // tools/server/utils.hpp format_error_response
    return fmt::format(R"({{"error":{{"code":{},"message":{},"type":"{}"}}}})", status,
                       quote(message),
                       status == 503   ? "unavailable_error"
                       : status >= 500 ? "server_error"
                                       : "invalid_request_error");
  if (is_tgi(api))
    return fmt::format(R"({{"error":{},"error_type":"{}"}})", quote(message),
                       tgi_error_type(status));
  return fmt::format(R"({{"object":"error","message":{},"type":"{}","param":null,"code":{}}})",
                     quote(message), openai_error_type(status), status);
}

int unadmitted_status(ApiKind api, bool queue_full) {
  if (api == ApiKind::anthropic) return 529;
  return queue_full ? 429 : 503;
}

int64_t count_text_tokens(std::string_view text, int chars_per_token) {
  return (static_cast<int64_t>(text.size()) + chars_per_token - 1) / chars_per_token;
}

std::optional<int64_t> parse_priority_value(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

namespace {

// The text of -k / 4096 for each k, made once: a streamed token's event copies it instead of
// formatting a float (the simulator's largest formatting cost per token).
constexpr size_t kLogprobSteps = 4096;
const std::vector<std::string>& logprob_texts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> v;
    v.reserve(kLogprobSteps);
    for (size_t k = 0; k < kLogprobSteps; ++k)
      v.push_back(fmt::format("{:.4f}", -static_cast<double>(k) / kLogprobSteps));
    return v;
  }();
  return texts;
}

}  // namespace

Token token_at(uint64_t text_seed, int64_t index) {
  uint64_t h = splitmix64(text_seed ^ splitmix64(static_cast<uint64_t>(index)));
  Token t;
  size_t w = h % kVocab.size();
  t.id = static_cast<uint32_t>(1000 + w);
  t.text = kVocab[w];
  const size_t k = (h >> 32) % kLogprobSteps;
  t.logprob = -static_cast<double>(k) / kLogprobSteps;
  t.logprob_text = logprob_texts()[k];
  return t;
}

namespace {

// TGI "parameters": max_new_tokens (a positive u32), details, seed, ignore_eos.
std::optional<HttpError> tgi_parameters(BodyParse& b, const json& p) {
  const ApiKind api = b.api;
  if (auto m = p.find("max_new_tokens"); m != p.end() && !m->is_null()) {
    if (!m->is_number_integer() || m->get<int64_t>() < 0)
      return fail(api, 422,
                  "Failed to deserialize the JSON body into the target type: "
                  "parameters.max_new_tokens: invalid type: expected u32");
    b.max_new = m->get<int64_t>();
    if (*b.max_new == 0)
      return fail(api, 422, "Input validation error: `max_new_tokens` must be strictly positive");
  }
  if (auto d = p.find("details"); d != p.end() && !d->is_null()) {
    if (!d->is_boolean())
      return fail(api, 422,
                  "Failed to deserialize the JSON body into the target type: parameters.details: "
                  "invalid type: expected a boolean");
    b.r.details = d->get<bool>();
  }
  if (auto s = p.find("seed"); s != p.end() && s->is_number_integer())
    b.r.seed = s->get<uint64_t>();
  if (auto e = p.find("ignore_eos"); e != p.end() && e->is_boolean())
    b.r.ignore_eos = e->get<bool>();
  return std::nullopt;
}

// TGI /generate and /generate_stream: {"inputs": text, "parameters": {...}}, then the
// token limits (max_new_tokens defaults to what max_total_tokens leaves).
std::optional<HttpError> parse_tgi(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  const SimConfig& cfg = b.cfg;
  GenRequest& r = b.r;
  r.stream = api == ApiKind::tgi_stream;
  auto in = j.find("inputs");
  if (in == j.end())
    return fail(api, 422,
                "Failed to deserialize the JSON body into the target type: missing field `inputs`");
  if (!in->is_string())
    return fail(api, 422,
                "Failed to deserialize the JSON body into the target type: inputs: invalid type: "
                "expected a string");
  std::string inputs = in->get<std::string>();
  if (inputs.empty()) return fail(api, 422, "Input validation error: `inputs` cannot be empty");
  r.prompt_tokens = count_text_tokens(inputs, cfg.text.chars_per_token);
  b.prompt_hash_src = std::move(inputs);
  auto pit = j.find("parameters");
  if (pit != j.end() && !pit->is_null()) {
    if (!pit->is_object())
      return fail(api, 422,
                  "Failed to deserialize the JSON body into the target type: parameters: invalid "
                  "type: expected struct GenerateParameters");
    if (auto err = tgi_parameters(b, *pit)) return err;
  }
  if (r.prompt_tokens > cfg.sched.max_input_tokens)
    return fail(api, 422,
                fmt::format("Input validation error: `inputs` must have less than {} tokens. "
                            "Given: {}",
                            cfg.sched.max_input_tokens, r.prompt_tokens));
  if (!b.max_new) b.max_new = std::max<int64_t>(1, cfg.sched.max_total_tokens - r.prompt_tokens);
  if (r.prompt_tokens + *b.max_new > cfg.sched.max_total_tokens)
    return fail(api, 422,
                fmt::format("Input validation error: `inputs` tokens + `max_new_tokens` must be "
                            "<= {}. Given: {} `inputs` tokens and {} `max_new_tokens`",
                            cfg.sched.max_total_tokens, r.prompt_tokens, *b.max_new));
  return std::nullopt;
}

// Chat "messages": a non-empty list of {role, content}; the prompt counts each
// message's text plus chat_tokens_per_message.
std::optional<HttpError> chat_prompt(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  auto ms = j.find("messages");
  if (ms == j.end()) return fail(api, 400, "Field required: messages");
  if (!ms->is_array() || ms->empty())
    return fail(api, 400, "messages: Input should be a non-empty list of messages");
  for (const auto& m : *ms) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return fail(api, 400, "messages: each message must be an object with a string role");
    auto c = m.find("content");
    std::optional<std::string> text = c == m.end() ? std::string() : content_text(*c);
    if (!text) return fail(api, 400, "messages.content: Input should be a valid string");
    b.r.prompt_tokens +=
        count_text_tokens(*text, b.cfg.text.chars_per_token) + b.cfg.text.chat_tokens_per_message;
    b.prompt_hash_src += *text;
    b.prompt_hash_src += '\n';
  }
  return std::nullopt;
}

// Completions "prompt": a string, a list of token ids or a list with one string; not empty.
std::optional<HttpError> completion_prompt(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  GenRequest& r = b.r;
  auto p = j.find("prompt");
  if (p == j.end()) return fail(api, 400, "Field required: prompt");
  if (p->is_string()) {
    b.prompt_hash_src = p->get<std::string>();
    r.prompt_tokens = count_text_tokens(b.prompt_hash_src, b.cfg.text.chars_per_token);
  } else if (p->is_array() && !p->empty() && (*p)[0].is_number_integer()) {
    for (const auto& t : *p) {
      if (!t.is_number_integer()) return fail(api, 400, "prompt: Input should be a valid integer");
      b.prompt_hash_src += std::to_string(t.get<int64_t>()) + ",";
    }
    r.prompt_tokens = static_cast<int64_t>(p->size());
  } else if (p->is_array() && p->size() == 1 && (*p)[0].is_string()) {
    b.prompt_hash_src = (*p)[0].get<std::string>();
    r.prompt_tokens = count_text_tokens(b.prompt_hash_src, b.cfg.text.chars_per_token);
  } else {
    return fail(api, 400,
                "prompt: Input should be a valid string, a list of token ids or a list with one "
                "string");
  }
  if (r.prompt_tokens == 0) return fail(api, 400, "Prompt cannot be empty");
  return std::nullopt;
}

// OpenAI options: max_tokens or max_completion_tokens (the first given, at least 1),
// stream, stream_options (only with stream), ignore_eos, seed, priority.
std::optional<HttpError> openai_options(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  GenRequest& r = b.r;
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    auto m = j.find(key);
    if (m == j.end() || m->is_null()) continue;
    if (!m->is_number_integer())
      return fail(api, 400, fmt::format("{}: Input should be a valid integer", key));
    if (m->get<int64_t>() < 1)
      return fail(api, 400, fmt::format("{} must be at least 1, got {}.", key, m->get<int64_t>()));
    b.max_new = m->get<int64_t>();
    break;
  }
  if (auto s = j.find("stream"); s != j.end() && !s->is_null()) {
    if (!s->is_boolean()) return fail(api, 400, "stream: Input should be a valid boolean");
    r.stream = s->get<bool>();
  }
  if (auto so = j.find("stream_options"); so != j.end() && so->is_object()) {
    if (auto u = so->find("include_usage"); u != so->end() && u->is_boolean())
      r.include_usage = u->get<bool>();
    if (!r.stream) return fail(api, 400, "Stream options can only be defined when `stream=True`.");
  }
  if (auto e = j.find("ignore_eos"); e != j.end() && e->is_boolean()) r.ignore_eos = e->get<bool>();
  if (auto s = j.find("seed"); s != j.end() && s->is_number_integer()) r.seed = s->get<uint64_t>();
  // vLLM's "priority" (an integer, lower = served earlier; OpenAI's own API has none).
  if (auto p = j.find("priority"); p != j.end() && !p->is_null()) {
    if (!p->is_number_integer()) return fail(api, 400, "priority: Input should be a valid integer");
    r.priority = p->get<int64_t>();
  }
  return std::nullopt;
}

// llama.cpp /completion: "prompt" (a non-empty string), "n_predict" (-1 or absent: what
// the context leaves), "stream", "ignore_eos", "seed"; the context length as OpenAI's.
std::optional<HttpError> parse_llamacpp(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  GenRequest& r = b.r;
  auto p = j.find("prompt");
  if (p == j.end() || !p->is_string())
    return fail(api, 400, "\"prompt\" must be provided and be a string");
  b.prompt_hash_src = p->get<std::string>();
  r.prompt_tokens = count_text_tokens(b.prompt_hash_src, b.cfg.text.chars_per_token);
  if (r.prompt_tokens == 0) return fail(api, 400, "Prompt cannot be empty");
  if (auto n = j.find("n_predict"); n != j.end() && !n->is_null()) {
    if (!n->is_number_integer()) return fail(api, 400, "n_predict must be an integer");
    if (n->get<int64_t>() == 0 || n->get<int64_t>() < -1)
      return fail(api, 400,
                  fmt::format("n_predict must be -1 or at least 1, got {}", n->get<int64_t>()));
    if (n->get<int64_t>() > 0) b.max_new = n->get<int64_t>();
  }
  if (auto s = j.find("stream"); s != j.end() && s->is_boolean()) r.stream = s->get<bool>();
  if (auto e = j.find("ignore_eos"); e != j.end() && e->is_boolean()) r.ignore_eos = e->get<bool>();
  if (auto s = j.find("seed"); s != j.end() && s->is_number_integer()) r.seed = s->get<uint64_t>();
  const SimConfig& cfg = b.cfg;
  if (!b.max_new) b.max_new = std::max<int64_t>(1, cfg.sched.max_total_tokens - r.prompt_tokens);
  if (r.prompt_tokens > cfg.sched.max_input_tokens ||
      r.prompt_tokens + *b.max_new > cfg.sched.max_total_tokens)
    return fail(api, 400,
                fmt::format("the request exceeds the available context size ({} tokens): {} "
                            "prompt tokens and {} to predict",
                            cfg.sched.max_total_tokens, r.prompt_tokens, *b.max_new));
  return std::nullopt;
}

// OpenAI /v1/completions and /v1/chat/completions: model, the prompt, the options, then
// the context length (max_tokens defaults: chat what max_total_tokens leaves,
// completions default_max_tokens_completions).
std::optional<HttpError> parse_openai(BodyParse& b, const json& j) {
  const ApiKind api = b.api;
  const SimConfig& cfg = b.cfg;
  GenRequest& r = b.r;
  const bool chat = api == ApiKind::chat;
  if (auto m = j.find("model"); m != j.end() && m->is_string()) r.model = m->get<std::string>();
  if (auto err = chat ? chat_prompt(b, j) : completion_prompt(b, j)) return err;
  if (auto err = openai_options(b, j)) return err;
  if (!b.max_new)
    b.max_new = chat ? std::max<int64_t>(1, cfg.sched.max_total_tokens - r.prompt_tokens)
                     : cfg.text.default_max_tokens_completions;
  if (r.prompt_tokens > cfg.sched.max_input_tokens ||
      r.prompt_tokens + *b.max_new > cfg.sched.max_total_tokens)
    return fail(api, 400,
                fmt::format("This model's maximum context length is {} tokens. However, you "
                            "requested {} tokens ({} in the messages, {} in the completion). "
                            "Please reduce the length of the messages or completion.",
                            cfg.sched.max_total_tokens, r.prompt_tokens + *b.max_new,
                            r.prompt_tokens, *b.max_new));
  return std::nullopt;
}

}  // namespace

std::variant<GenRequest, HttpError> parse_generate(ApiKind api, std::string_view body,
                                                   const SimConfig& cfg) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  BodyParse b{api, cfg, {}, {}, {}};
  b.r.api = api;
  b.r.model = cfg.model.name;
  bool tgi = is_tgi(api);
  if (j.is_discarded()) {
    if (tgi)
      return fail(api, 422, "Failed to parse the request body as JSON: expected value at line 1");
    return fail(api, 400, "JSON decode error: the request body is not valid JSON");
  }
  if (!j.is_object()) {
    if (tgi)
      return fail(api, 422,
                  "Failed to deserialize the JSON body into the target type: invalid type: "
                  "expected struct GenerateRequest");
    return fail(api, 400, "Input should be a valid dictionary or object to extract fields from");
  }
  if (auto err = tgi                         ? parse_tgi(b, j)
                 : api == ApiKind::llamacpp  ? parse_llamacpp(b, j)
                 : api == ApiKind::responses ? detail::parse_responses(b, j)
                 : api == ApiKind::anthropic ? detail::parse_anthropic(b, j)
                                             : parse_openai(b, j))
    return *std::move(err);
  GenRequest& r = b.r;
  r.max_new_tokens = *b.max_new;
  r.text_seed =
      splitmix64(cfg.server.seed ^ hash_text(b.prompt_hash_src) ^ splitmix64(r.seed.value_or(0)));
  r.output_tokens = r.ignore_eos
                        ? r.max_new_tokens
                        : eos_length(r.text_seed, r.max_new_tokens, cfg.text.eos_probability);
  if (api == ApiKind::chat || api == ApiKind::responses || api == ApiKind::anthropic)
    r.reasoning_tokens = std::min(cfg.text.reasoning_length, r.output_tokens);
  // Hashed from the prompt's text, not the body: requests whose other fields differ (another
  // max_tokens, a longer message list) still share the prefix their prompts share.
  r.prefix_blocks = prompt_prefix_blocks(cfg, b.prompt_hash_src, r.prompt_tokens);
  return std::move(b.r);
}

Formatter::Formatter(const GenRequest& req, std::string id, int64_t created_unix_s)
    : req_(req), id_(std::move(id)), created_(created_unix_s), model_json_(quote(req.model)) {
  // TGI's and the Responses API's final events repeat the whole text: grown once, not per
  // token (4 bytes a token).
  if ((is_tgi(req_.api) || req_.api == ApiKind::responses) && req_.output_tokens > 0)
    text_.reserve(static_cast<size_t>(req_.output_tokens) * 4);
}

std::string_view Formatter::finish_reason() const {
  bool eos = req_.output_tokens < req_.max_new_tokens;
  if (is_tgi(req_.api)) return eos ? "eos_token" : "length";
  if (req_.api == ApiKind::anthropic) return eos ? "end_turn" : "max_tokens";
  if (req_.api == ApiKind::responses) return eos ? "completed" : "incomplete";  // the status
  return eos ? "stop" : "length";
}

std::string Formatter::stream_start() const {
  if (req_.api == ApiKind::responses || req_.api == ApiKind::anthropic) return events_start();
  if (req_.api != ApiKind::chat) return {};
  return fmt::format(
      "data: {{\"id\":\"{}\",\"object\":\"chat.completion.chunk\",\"created\":{},\"model\":{},"
      "\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"\"}},"
      "\"logprobs\":null,\"finish_reason\":null}}]}}\n\n",
      id_, created_, model_json_);
}

std::string Formatter::token_event(int64_t index, bool last) {
  std::string out;
  append_token_event(out, index, last);
  return out;
}

void Formatter::append_token_event(std::string& out, int64_t index, bool last) {
  Token t = token_at(req_.text_seed, index);
  auto to = std::back_inserter(out);
  switch (req_.api) {
    case ApiKind::tgi_generate:
    case ApiKind::tgi_stream: {
      text_.append(t.text);
      fmt::format_to(
          to,
          FMT_COMPILE("data:{{\"index\":{},\"token\":{{\"id\":{},\"text\":\"{}\",\"logprob\":{},"
                      "\"special\":false}},"),
          index, t.id, t.text, t.logprob_text);
      if (!last) {
        out += "\"generated_text\":null,\"details\":null}\n\n";
        return;
      }
      std::string details =
          req_.details ? fmt::format(
                             "{{\"finish_reason\":\"{}\",\"generated_tokens\":{},\"seed\":{},"
                             "\"input_length\":{}}}",
                             finish_reason(), index,
                             req_.seed ? std::to_string(*req_.seed) : "null", req_.prompt_tokens)
                       : "null";
      fmt::format_to(to, FMT_COMPILE("\"generated_text\":{},\"details\":{}}}\n\n"), quote(text_),
                     details);
      return;
    }
    case ApiKind::responses:
    case ApiKind::anthropic:
      append_event_token(out, index, t);
      return;
    case ApiKind::completions:
      fmt::format_to(
          to,
          FMT_COMPILE(
              "data: {{\"id\":\"{}\",\"object\":\"text_completion\",\"created\":{},\"model\":{},"
              "\"choices\":[{{\"index\":0,\"text\":\"{}\",\"logprobs\":null,\"finish_reason\":"),
          id_, created_, model_json_, t.text);
      if (last)
        fmt::format_to(to, FMT_COMPILE("\"{}\""), finish_reason());
      else
        out += "null";
      out += ",\"stop_reason\":null}]}\n\n";
      return;
    case ApiKind::llamacpp:
      // The text of every token; the "stop": true event follows (stream_end).
      fmt::format_to(
          to,
          FMT_COMPILE("data: {{\"index\":0,\"content\":\"{}\",\"tokens\":[],\"stop\":false,"
                      "\"id_slot\":0,\"tokens_predicted\":{},\"tokens_evaluated\":{}}}\n\n"),
          t.text, index, req_.prompt_tokens);
      return;
    case ApiKind::chat:
      fmt::format_to(
          to,
          FMT_COMPILE(
              "data: "
              "{{\"id\":\"{}\",\"object\":\"chat.completion.chunk\",\"created\":{},\"model\":{},"
              "\"choices\":[{{\"index\":0,\"delta\":{{\"{}\":\"{}\"}},\"logprobs\":null,"
              "\"finish_reason\":"),
          id_, created_, model_json_, reasoning_at(index) ? "reasoning_content" : "content",
          t.text);
      if (last)
        fmt::format_to(to, FMT_COMPILE("\"{}\",\"stop_reason\":null"), finish_reason());
      else
        out += "null";
      out += "}]}\n\n";
      return;
  }
}

std::string Formatter::stream_end() const {
  if (is_tgi(req_.api)) return {};
  if (req_.api == ApiKind::responses || req_.api == ApiKind::anthropic) return events_end();
  if (req_.api == ApiKind::llamacpp) return "data: " + llamacpp_final("") + "\n\n";
  std::string out;
  if (req_.include_usage) {
    out = fmt::format(
        "data: {{\"id\":\"{}\",\"object\":\"{}\",\"created\":{},\"model\":{},\"choices\":[],"
        "\"usage\":{}}}\n\n",
        id_, req_.api == ApiKind::chat ? "chat.completion.chunk" : "text_completion", created_,
        model_json_, openai_usage());
  }
  out += "data: [DONE]\n\n";
  return out;
}

std::string Formatter::tgi_stream_error(std::string_view message, std::string_view error_type) {
  return fmt::format("data:{{\"error\":{},\"error_type\":\"{}\"}}\n\n", quote(message), error_type);
}

// llama.cpp's last object: `content` (the whole text when not streamed), "stop": true,
// the counts and the timings (tools/server/server.cpp result_timings::to_json).
std::string Formatter::llamacpp_final(std::string_view content) const {
  const LlamaTimings& t = timings_;
  const auto per = [](double ms, int64_t n) { return n > 0 ? ms / static_cast<double>(n) : 0.0; };
  const auto rate = [](double ms, int64_t n) {
    return ms > 0 ? 1e3 * static_cast<double>(n) / ms : 0.0;
  };
  return fmt::format(
      "{{\"index\":0,\"content\":{},\"tokens\":[],\"id_slot\":0,\"stop\":true,\"model\":{},"
      "\"tokens_predicted\":{},\"tokens_evaluated\":{},\"stop_type\":\"{}\","
      "\"stopping_word\":\"\",\"tokens_cached\":{},\"timings\":{{\"cache_n\":{},"
      "\"prompt_n\":{},\"prompt_ms\":{:.3f},\"prompt_per_token_ms\":{:.3f},"
      "\"prompt_per_second\":{:.3f},\"predicted_n\":{},\"predicted_ms\":{:.3f},"
      "\"predicted_per_token_ms\":{:.3f},\"predicted_per_second\":{:.3f}}}}}",
      quote(content), model_json_, req_.output_tokens, req_.prompt_tokens,
      req_.output_tokens < req_.max_new_tokens ? "eos" : "limit",
      req_.prompt_tokens + req_.output_tokens, t.cache_n, t.prompt_n, t.prompt_ms,
      per(t.prompt_ms, t.prompt_n), rate(t.prompt_ms, t.prompt_n), t.predicted_n, t.predicted_ms,
      per(t.predicted_ms, t.predicted_n), rate(t.predicted_ms, t.predicted_n));
}

// OpenAI's usage object; completion_tokens_details only when the request reasoned.
std::string Formatter::openai_usage() const {
  const int64_t n = req_.output_tokens;
  std::string details;
  if (req_.reasoning_tokens > 0)
    details = fmt::format(",\"completion_tokens_details\":{{\"reasoning_tokens\":{}}}",
                          req_.reasoning_tokens);
  if (cached_tokens_ >= 0)
    details += fmt::format(",\"prompt_tokens_details\":{{\"cached_tokens\":{}}}", cached_tokens_);
  return fmt::format("{{\"prompt_tokens\":{},\"total_tokens\":{},\"completion_tokens\":{}{}}}",
                     req_.prompt_tokens, req_.prompt_tokens + n, n, details);
}

std::string Formatter::full_response() const {
  int64_t n = req_.output_tokens;
  std::string text, reasoning;
  text.reserve(static_cast<size_t>(n) * 4);
  for (int64_t i = 1; i <= n; ++i)
    (reasoning_at(i) ? reasoning : text).append(token_at(req_.text_seed, i).text);
  const std::string usage = openai_usage();
  // chat: the reasoning as message.reasoning_content (vLLM), before the content.
  const std::string reasoning_field =
      reasoning.empty() ? "" : fmt::format("\"reasoning_content\":{},", quote(reasoning));
  switch (req_.api) {
    case ApiKind::llamacpp:
      return llamacpp_final(text);
    case ApiKind::responses:
    case ApiKind::anthropic:
      return events_full_response(reasoning, text);
    case ApiKind::tgi_generate:
    case ApiKind::tgi_stream: {
      if (!req_.details) return fmt::format("{{\"generated_text\":{}}}", quote(text));
      std::string tokens;
      for (int64_t i = 1; i <= n; ++i) {
        Token t = token_at(req_.text_seed, i);
        if (i > 1) tokens += ',';
        tokens += fmt::format(R"({{"id":{},"text":"{}","logprob":{},"special":false}})", t.id,
                              t.text, t.logprob_text);
      }
      return fmt::format(
          "{{\"generated_text\":{},\"details\":{{\"finish_reason\":\"{}\",\"generated_tokens\":{},"
          "\"seed\":{},\"prefill\":[],\"tokens\":[{}]}}}}",
          quote(text), finish_reason(), n, req_.seed ? std::to_string(*req_.seed) : "null", tokens);
    }
    case ApiKind::completions:
      return fmt::format(
          "{{\"id\":\"{}\",\"object\":\"text_completion\",\"created\":{},\"model\":{},"
          "\"choices\":[{{\"index\":0,\"text\":{},\"logprobs\":null,\"finish_reason\":\"{}\","
          "\"stop_reason\":null,\"prompt_logprobs\":null}}],\"usage\":{}}}",
          id_, created_, model_json_, quote(text), finish_reason(), usage);
    case ApiKind::chat:
      return fmt::format(
          "{{\"id\":\"{}\",\"object\":\"chat.completion\",\"created\":{},\"model\":{},"
          "\"choices\":[{{\"index\":0,\"message\":{{\"role\":\"assistant\",{}\"content\":{},"
          "\"tool_calls\":[]}},\"logprobs\":null,\"finish_reason\":\"{}\",\"stop_reason\":null}}],"
          "\"usage\":{},\"prompt_logprobs\":null}}",
          id_, created_, model_json_, reasoning_field, quote(text), finish_reason(), usage);
  }
  return {};
}

}  // namespace sb::sim
