// Generic JSON API: a request template and JSON pointers to the text.
//
// Template: JSON text with the placeholders {{prompt}}, {{max_tokens}} and {{model}}.
// Substitution depends on where a placeholder stands (found by scanning the
// template's JSON strings):
// - inside a JSON string ("inputs": "{{prompt}}", "q": "Say: {{prompt}}"):
//   the value JSON-escaped without quotes (quotes, backslashes, control
//   characters escaped; UTF-8 kept; invalid UTF-8 replaced by U+FFFD);
// - outside a string ("prompt": {{prompt}}, "max_new_tokens": {{max_tokens}}):
//   a complete JSON value: a quoted string, or the number.
// {{max_tokens}} <= 0 (leave it to the server) becomes null outside a string and
// an empty text inside one. The template must contain {{prompt}} and be valid
// JSON once substituted (checked in make_adapter); extra_body is merged last.
//
// Decoding: the text is the string at generic_stream_pointer (stream events) or
// generic_body_pointer (whole body); a missing pointer or a non-string value is
// no text. "[DONE]" and generic_final_pointer mark the last event. A non-null
// "error" member (a string, or an object with message/code/type) is an error;
// usage.{prompt,completion}_tokens are read when present, and generic_usage_pointer
// (a count, or a usage object) after them.
#include <array>

#include "common/error.h"
#include "common/error_clip.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {
namespace {

using simdjson::error_code;
using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

enum class Slot { prompt, max_tokens, model };

struct Piece {
  std::string literal;  // template text before the placeholder
  Slot slot = Slot::prompt;
  bool in_string = false;
};

struct Template {
  std::vector<Piece> pieces;  // each literal is followed by a placeholder
  std::string tail;           // text after the last placeholder
};

constexpr std::array<std::pair<std::string_view, Slot>, 3> kPlaceholders = {
    {{"{{prompt}}", Slot::prompt},
     {"{{max_tokens}}", Slot::max_tokens},
     {"{{model}}", Slot::model}}};

// Splits the template at its placeholders, noting which ones stand inside a JSON string.
Template compile(std::string_view text) {
  Template t;
  std::string literal;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    bool matched = false;
    for (const auto& [name, slot] : kPlaceholders) {
      if (text.substr(i, name.size()) == name) {
        t.pieces.push_back({std::move(literal), slot, in_string});
        literal.clear();
        i += name.size();
        matched = true;
        break;
      }
    }
    if (matched) continue;
    const char c = text[i];
    literal.push_back(c);
    if (in_string && c == '\\' && i + 1 < text.size()) {
      literal.push_back(text[i + 1]);
      i += 2;
      continue;
    }
    if (c == '"') in_string = !in_string;
    ++i;
  }
  t.tail = std::move(literal);
  return t;
}

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render(const Template& t, const Prompt& prompt, const std::string& model) {
  std::string out;
  for (const Piece& p : t.pieces) {
    out += p.literal;
    std::string value;
    switch (p.slot) {
      case Slot::prompt:
        value = json_string(prompt.text);
        break;
      case Slot::model:
        value = json_string(model);
        break;
      case Slot::max_tokens:
        if (prompt.max_tokens > 0) {
          value = std::to_string(prompt.max_tokens);
        } else {
          value = p.in_string ? "" : "null";
        }
        break;
    }
    if (p.in_string && p.slot != Slot::max_tokens) {
      out.append(value, 1, value.size() - 2);  // escaped text without its quotes
    } else {
      out += value;
    }
  }
  out += t.tail;
  return out;
}

// Lookup failures that mean "nothing there" rather than bad JSON. simdjson
// reports a pointer that continues through a scalar as INVALID_JSON_POINTER;
// the pointers' own syntax is checked in make_adapter.
bool absent(error_code err) {
  return err == simdjson::NO_SUCH_FIELD || err == simdjson::INDEX_OUT_OF_BOUNDS ||
         err == simdjson::INCORRECT_TYPE || err == simdjson::INVALID_JSON_POINTER;
}

// The value at `pointer`, or nullopt when the document has nothing there.
std::optional<value> lookup(simdjson::ondemand::document& doc, const std::string& pointer) {
  value v;
  const error_code err = doc.at_pointer(pointer).get(v);
  if (err == simdjson::SUCCESS) return v;
  if (absent(err)) return std::nullopt;
  throw simdjson::simdjson_error(err);
}

bool truthy(value v) {
  switch (json_type(v.type())) {
    case json_type::boolean:
      return bool(v.get_bool());
    case json_type::string:
      return !std::string_view(v.get_string()).empty();
    case json_type::number:
      return double(v.get_double()) != 0.0;
    default:
      return false;
  }
}

void check_pointer(const std::string& pointer, std::string_view field) {
  if (!pointer.empty() && pointer.front() != '/') {
    throw usage_error(std::string(field) + " must be a JSON pointer starting with '/', got '" +
                      pointer + "' (e.g. /token/text)");
  }
}

class GenericAdapter final : public Adapter {
 public:
  explicit GenericAdapter(const AdapterConfig& config)
      : config_(config), template_(compile(config.generic_template)) {}

  std::string_view default_path() const override { return "/generate"; }

  std::string build_body(const Prompt& prompt) const override {
    std::string body = render(template_, prompt, config_.model);
    if (!config_.extra_body.is_object() || config_.extra_body.empty()) return body;
    return finish_body(nlohmann::json::parse(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    return decode(data, config_.generic_stream_pointer, false);
  }
  Decoded decode_body(std::string_view body) override {
    return decode(body, config_.generic_body_pointer, true);
  }

 private:
  Decoded decode(std::string_view json, const std::string& text_pointer, bool whole_body) {
    Decoded d;
    if (is_done_marker(json)) {
      d.final = true;
      return d;
    }
    try {
      simdjson::ondemand::document& doc = decoder_.parse(json);
      // Each lookup rewinds the document and reuses its string buffer: the
      // text, whose view is handed out, is looked up last.
      if (auto error = lookup(doc, "/error");
          error && json_type(error->type()) != json_type::null) {
        d.error = ErrorClass::server_error;
        if (json_type(error->type()) == json_type::string) {
          d.error_message = clip_error(std::string_view(error->get_string()));
        } else {
          std::optional<int64_t> code;
          std::string code_text, type;
          if (auto v = lookup(doc, "/error/code")) {
            code = opt_int(*v);
            code_text = std::string(opt_string(*v).value_or(""));
          }
          if (auto v = lookup(doc, "/error/type")) type = std::string(opt_string(*v).value_or(""));
          d.error = error_class_from_code(code, code_text, type);
          if (auto v = lookup(doc, "/error/message"))
            d.error_message = clip_error(opt_string(*v).value_or("(no message)"));
        }
      }
      if (auto v = lookup(doc, "/usage/completion_tokens")) d.completion_tokens = opt_int(*v);
      if (auto v = lookup(doc, "/usage/prompt_tokens")) d.prompt_tokens = opt_int(*v);
      if (!config_.generic_usage_pointer.empty()) read_usage(doc, d);
      if (!config_.generic_final_pointer.empty()) {
        if (auto v = lookup(doc, config_.generic_final_pointer)) d.final = truthy(*v);
      }
      if (auto v = lookup(doc, text_pointer)) {
        if (auto text = opt_string(*v)) {
          d.text = *text;
          d.content_chars = static_cast<uint32_t>(text->size());
          d.text_event = !text->empty();
        }
      }
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
      return d;
    }
    if (whole_body) d.final = true;
    return d;
  }

  // generic_usage_pointer: a number is the output token count; an object is read as
  // {completion_tokens, prompt_tokens}.
  void read_usage(simdjson::ondemand::document& doc, Decoded& d) {
    auto v = lookup(doc, config_.generic_usage_pointer);
    if (!v) return;
    if (json_type(v->type()) == json_type::number) {
      d.completion_tokens = opt_int(*v);
    } else if (json_type(v->type()) == json_type::object) {
      if (auto n = lookup(doc, usage_completion_)) d.completion_tokens = opt_int(*n);
      if (auto n = lookup(doc, usage_prompt_)) d.prompt_tokens = opt_int(*n);
    }
  }

  AdapterConfig config_;
  Template template_;
  // The usage object's members, built once (no allocation per event).
  std::string usage_completion_ = config_.generic_usage_pointer + "/completion_tokens";
  std::string usage_prompt_ = config_.generic_usage_pointer + "/prompt_tokens";
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_generic_adapter(const AdapterConfig& config) {
  if (config.generic_template.find("{{prompt}}") == std::string::npos) {
    throw usage_error(
        "generic_template must contain {{prompt}} (e.g. {\"inputs\":\"{{prompt}}\"})");
  }
  check_pointer(config.generic_stream_pointer, "generic_stream_pointer");
  check_pointer(config.generic_body_pointer, "generic_body_pointer");
  check_pointer(config.generic_final_pointer, "generic_final_pointer");
  check_pointer(config.generic_usage_pointer, "generic_usage_pointer");
  if (config.stream && config.generic_stream_pointer.empty()) {
    throw usage_error(
        "generic_stream_pointer is required for a streamed generic API "
        "(e.g. /token/text)");
  }
  if (!config.stream && config.generic_body_pointer.empty()) {
    throw usage_error(
        "generic_body_pointer is required for a non-streamed generic API "
        "(e.g. /generated_text)");
  }
  const Prompt sample{"probe \"quoted\"\n", "", 16};
  const std::string body = render(compile(config.generic_template), sample, config.model);
  if (!nlohmann::json::accept(body)) {
    throw usage_error("generic_template is not valid JSON once its placeholders are filled: " +
                      clip_error(body));
  }
  auto adapter = std::make_unique<GenericAdapter>(config);
  return adapter;
}

}  // namespace sb::protocol
