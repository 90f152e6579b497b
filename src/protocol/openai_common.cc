#include "protocol/openai_common.h"

#include <charconv>

#include "common/error_clip.h"
#include "common/json_escape.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

// {content, reasoning_content, reasoning} of a chat delta or message. Servers
// that send both reasoning fields send the same text twice: the longer counts.
// A string value and where it lies verbatim in the payload (Decoded::text_offset); an empty
// view and -1 for a value that is not a string.
struct TextValue {
  std::string_view text;
  int64_t offset = -1;
};

TextValue text_value(const JsonDecoder& decoder, value v) {
  const std::string_view raw = v.raw_json_token();  // peeks: the value is still unread
  const std::optional<std::string_view> text = opt_string(v);
  if (!text) return {};
  return {*text, decoder.verbatim_offset(raw, *text)};
}

void decode_chat_text(const JsonDecoder& decoder, object msg, Decoded& d) {
  TextValue content;
  std::string_view reasoning;
  for (auto field : msg) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "content") {
      content = text_value(decoder, field.value());
    } else if (key == "reasoning_content" || key == "reasoning") {
      const std::string_view r = opt_string(field.value()).value_or(std::string_view());
      if (r.size() > reasoning.size()) reasoning = r;
    }
  }
  d.text = content.text;
  d.text_offset = content.offset;
  d.content_chars = static_cast<uint32_t>(content.text.size());
  d.reasoning_chars = static_cast<uint32_t>(reasoning.size());
}

void decode_choice(const JsonDecoder& decoder, object choice, ChoiceText where, Decoded& d) {
  for (auto field : choice) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (where == ChoiceText::text && key == "text") {
      const TextValue text = text_value(decoder, field.value());
      d.text = text.text;
      d.text_offset = text.offset;
      d.content_chars = static_cast<uint32_t>(text.text.size());
    } else if ((where == ChoiceText::delta && key == "delta") ||
               (where == ChoiceText::message && key == "message")) {
      value v = field.value();
      if (v.type() == json_type::object) decode_chat_text(decoder, v.get_object(), d);
    }
  }
}

struct ErrorFields {
  bool present = false;
  std::string_view message;
  std::string_view type;
  std::string_view code_text;
  std::optional<int64_t> code;
};

void read_error_field(simdjson::ondemand::raw_json_string key, value v, ErrorFields& e) {
  if (key == "message") {
    e.message = opt_string(v).value_or(std::string_view());
  } else if (key == "type") {
    e.type = opt_string(v).value_or(std::string_view());
  } else if (key == "code") {
    const json_type t = v.type();
    if (t == json_type::number) {
      e.code = opt_int(v);
    } else if (t == json_type::string) {
      e.code_text = v.get_string();
      int64_t n = 0;
      bool digits = !e.code_text.empty();
      for (char c : e.code_text) {
        if (c < '0' || c > '9') {
          digits = false;
          break;
        }
        n = n * 10 + (c - '0');
        if (n > 100000) break;
      }
      if (digits) e.code = n;
    }
  }
}

}  // namespace

void decode_openai_usage(object usage, Decoded& d, const UsageKeys& keys) {
  for (auto field : usage) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == keys.output) {
      d.completion_tokens = opt_int(field.value());
    } else if (key == keys.input) {
      d.prompt_tokens = opt_int(field.value());
    } else if (key == keys.output_details) {
      value details = field.value();
      if (details.type() != json_type::object) continue;
      for (auto f : details.get_object()) {
        const simdjson::ondemand::raw_json_string k = f.key();
        if (k == "reasoning_tokens") d.reasoning_tokens = opt_int(f.value());
      }
    } else if (key == keys.input_details) {
      // cached_tokens: prompt tokens the server's prefix cache served (vLLM, OpenAI).
      value details = field.value();
      if (details.type() != json_type::object) continue;
      for (auto f : details.get_object()) {
        const simdjson::ondemand::raw_json_string k = f.key();
        if (k != "cached_tokens") continue;
        if (auto n = opt_int(f.value()); n && *n >= 0) {
          ServerTimes t;
          t.cached_tokens = *n;
          t.source = ServerTimingSource::openai_usage;
          d.server_timings = t;
        }
      }
    }
  }
}

Decoded decode_openai(JsonDecoder& decoder, std::string_view json, ChoiceText where,
                      bool whole_body) {
  Decoded d;
  if (is_done_marker(json)) {
    d.final = true;
    return d;
  }
  try {
    simdjson::ondemand::document& doc = decoder.parse(json);
    const json_type root_type = doc.type();
    if (root_type != json_type::object) {
      d.error = ErrorClass::malformed;
      d.error_message = clip_error("expected a JSON object, got: " + std::string(json));
      return d;
    }
    ErrorFields error;
    bool object_is_error = false;
    for (auto field : doc.get_object()) {
      const simdjson::ondemand::raw_json_string key = field.key();
      value v = field.value();
      if (key == "choices") {
        if (v.type() != json_type::array) continue;  // null: a usage-only chunk
        for (auto choice : v.get_array()) {
          if (choice.type() == json_type::object)
            decode_choice(decoder, choice.get_object(), where, d);
          break;  // choices[0] only
        }
      } else if (key == "usage") {
        if (v.type() == json_type::object) decode_openai_usage(v.get_object(), d, kChatUsageKeys);
      } else if (key == "error") {
        error.present = true;
        const json_type t = v.type();
        if (t == json_type::object) {
          for (auto f : v.get_object()) read_error_field(f.key(), f.value(), error);
        } else if (t == json_type::string) {
          error.message = v.get_string();
        }
      } else if (key == "object") {
        object_is_error = opt_string(v).value_or(std::string_view()) == "error";
      } else if (key == "message" || key == "type" || key == "code") {
        read_error_field(key, v, error);  // top-level fields of vLLM's older ErrorResponse
      }
    }
    if (error.present || object_is_error) {
      d.error = error_class_from_code(error.code, error.code_text, error.type);
      d.error_message = clip_error(error.message.empty() ? "(no message)" : error.message);
    }
  } catch (const simdjson::simdjson_error& e) {
    set_malformed(d, e);
    return d;
  }
  d.text_event = d.content_chars > 0 || d.reasoning_chars > 0;
  if (whole_body) d.final = true;
  return d;
}

std::optional<std::string> plain_openai_body(const AdapterConfig& config, const Prompt& prompt,
                                             bool chat) {
  if (!prompt.messages_json.empty()) return std::nullopt;
  if (config.extra_body.is_object() && !config.extra_body.empty()) return std::nullopt;
  std::string out;
  out.reserve(prompt.text.size() + config.model.size() + 160);
  char separator = '{';
  const auto key = [&](std::string_view name) {
    out += separator;
    separator = ',';
    out += '"';
    out += name;
    out += "\":";
  };
  const auto integer = [&](int64_t v) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  };
  // In the tree's (std::map's) key order.
  if (config.ignore_eos) {
    key("ignore_eos");
    out += "true";
  }
  if (prompt.max_tokens > 0) {
    key(chat && config.max_completion_tokens ? "max_completion_tokens" : "max_tokens");
    integer(prompt.max_tokens);
  }
  if (chat) {
    key("messages");
    out += "[{\"content\":";
    append_json_string(out, prompt.text);
    out += ",\"role\":\"user\"}]";
  }
  if (!config.model.empty()) {
    key("model");
    append_json_string(out, config.model);
  }
  if (prompt.priority) {
    key("priority");
    integer(*prompt.priority);
  }
  if (!chat) {
    key("prompt");
    append_json_string(out, prompt.text);
  }
  key("stream");
  out += config.stream ? "true" : "false";
  if (config.stream) {
    key("stream_options");
    out += "{\"include_usage\":true}";
  }
  out += '}';
  return out;
}

void add_openai_fields(nlohmann::json& body, const AdapterConfig& config) {
  if (!config.model.empty()) body["model"] = config.model;
  body["stream"] = config.stream;
  // vLLM rejects stream_options without stream (ChatCompletionRequest.validate_stream_options).
  if (config.stream) body["stream_options"] = {{"include_usage", true}};
  if (config.ignore_eos) body["ignore_eos"] = true;
}

}  // namespace sb::protocol
