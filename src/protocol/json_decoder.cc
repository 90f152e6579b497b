#include "protocol/json_decoder.h"

#include <cstring>

#include "common/error.h"
#include "common/error_clip.h"

namespace sb::protocol {

simdjson::ondemand::document& JsonDecoder::parse(std::string_view json) {
  const std::size_t need = json.size() + simdjson::SIMDJSON_PADDING;
  if (need > capacity_) {
    capacity_ = std::max(need, capacity_ * 2);
    buf_ = std::make_unique<char[]>(capacity_);
  }
  std::memcpy(buf_.get(), json.data(), json.size());
  size_ = json.size();
  std::memset(buf_.get() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  const simdjson::padded_string_view input(buf_.get(), json.size(), capacity_);
  if (const simdjson::error_code err = parser_.iterate(input).get(doc_)) {
    throw simdjson::simdjson_error(err);
  }
  return doc_;
}

int64_t JsonDecoder::verbatim_offset(std::string_view raw_token, std::string_view text) const {
  const char* const begin = buf_.get();
  if (raw_token.size() < text.size() + 2 || raw_token.data() < begin ||
      raw_token.data() + text.size() + 2 > begin + size_)
    return -1;
  const std::string_view raw = raw_token.substr(1, text.size());
  if (raw_token.front() != '"' || raw_token[text.size() + 1] != '"' || raw != text ||
      raw.find('\\') != std::string_view::npos)
    return -1;
  return raw.data() - begin;
}

bool is_done_marker(std::string_view data) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!data.empty() && is_space(data.front())) data.remove_prefix(1);
  while (!data.empty() && is_space(data.back())) data.remove_suffix(1);
  return data == "[DONE]";
}

std::optional<std::string_view> opt_string(simdjson::ondemand::value v) {
  const simdjson::ondemand::json_type type = v.type();
  if (type != simdjson::ondemand::json_type::string) return std::nullopt;
  const std::string_view s = v.get_string();
  return s;
}

std::optional<int64_t> opt_int(simdjson::ondemand::value v) {
  const simdjson::ondemand::json_type type = v.type();
  if (type != simdjson::ondemand::json_type::number) return std::nullopt;
  const simdjson::ondemand::number_type kind = v.get_number_type();
  if (kind == simdjson::ondemand::number_type::signed_integer) {
    const int64_t n = v.get_int64();
    return n;
  }
  const double x = v.get_double();
  if (!(x > -9.2e18 && x < 9.2e18)) return std::nullopt;  // NaN or past int64: casting is UB
  return static_cast<int64_t>(x);
}

namespace {
bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}
}  // namespace

ErrorClass error_class_from_code(std::optional<int64_t> code, std::string_view code_text,
                                 std::string_view type) {
  if (code && *code >= 400 && *code < 600) return error_class_from_status(static_cast<int>(*code));
  for (std::string_view s : {code_text, type}) {
    if (contains(s, "rate_limit") || contains(s, "RateLimit")) return ErrorClass::rate_limited;
    if (contains(s, "overload") || contains(s, "Overload") || contains(s, "ServiceUnavailable"))
      return ErrorClass::overloaded;
    if (contains(s, "timeout") || contains(s, "Timeout")) return ErrorClass::timeout;
    if (contains(s, "invalid") || contains(s, "validation") || contains(s, "BadRequest") ||
        contains(s, "NotFound"))
      return ErrorClass::validation;
  }
  return ErrorClass::server_error;
}

void set_malformed(Decoded& d, const simdjson::simdjson_error& e) {
  d = Decoded{};
  d.error = ErrorClass::malformed;
  d.error_message = clip_error(std::string("malformed JSON: ") + e.what());
}

Decoded not_an_object(std::string_view json) {
  Decoded d;
  d.error = ErrorClass::malformed;
  d.error_message = clip_error("expected a JSON object, got: " + std::string(json));
  return d;
}

void finish_whole_body(Decoded& d, std::string_view text) {
  d.text = text;
  d.content_chars = static_cast<uint32_t>(text.size());
  d.text_event = d.content_chars > 0 || d.reasoning_chars > 0;
  d.final = true;
}

std::string finish_body(nlohmann::json body, const nlohmann::json& extra_body) {
  if (extra_body.is_object() && !extra_body.empty()) body.merge_patch(extra_body);
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void check_extra_body(const nlohmann::json& extra_body) {
  if (!extra_body.is_null() && !extra_body.is_object()) {
    throw usage_error("extra_body must be a JSON object (merged into every request body), got " +
                      std::string(extra_body.type_name()));
  }
}

nlohmann::json chat_messages(const Prompt& prompt) {
  if (prompt.messages_json.empty())
    return nlohmann::json::array({{{"role", "user"}, {"content", prompt.text}}});
  nlohmann::json messages = nlohmann::json::parse(prompt.messages_json, nullptr, false);
  if (!messages.is_array())
    throw usage_error("prompt messages must be a JSON array of chat messages: " +
                      clip_error(prompt.messages_json));
  return messages;
}

}  // namespace sb::protocol
