#include "workload/dataset.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workload/length_spec.h"

namespace sb::workload {
namespace {

using nlohmann::json;

struct Message {
  std::string role;  // system | user | assistant
  json content;      // a string, or an array of content parts
};

std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const json& part : content)
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        if (!text.empty()) text += '\n';
        text += part["text"].get<std::string>();
      }
  return text;
}

std::string transcript(const std::vector<Message>& messages) {
  std::string out;
  for (const Message& m : messages) {
    const std::string who = m.role == "system"      ? "System"
                            : m.role == "assistant" ? "Assistant"
                                                    : "User";
    out += who + ": " + content_text(m.content) + "\n";
  }
  return out + "Assistant:";
}

// An entry for `messages` (the last one is the turn to answer).
DatasetEntry entry_from_messages(const std::vector<Message>& messages) {
  DatasetEntry e;
  if (messages.size() == 1 && messages[0].role == "user" && messages[0].content.is_string()) {
    e.prompt = messages[0].content.get<std::string>();
    return e;
  }
  json array = json::array();
  for (const Message& m : messages) array.push_back({{"role", m.role}, {"content", m.content}});
  e.messages_json = array.dump();
  e.prompt = transcript(messages);
  return e;
}

std::optional<std::string> parse_messages(const json& list, std::vector<Message>& out) {
  if (!list.is_array() || list.empty()) return "\"messages\" must be a non-empty array";
  for (size_t i = 0; i < list.size(); ++i) {
    const json& m = list[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return fmt::format("messages[{}] has no string \"role\"", i);
    const json content = m.contains("content") ? m["content"] : json();
    if (!content.is_string() && !content.is_array() &&
        !(content.is_null() && m["role"] == "assistant"))
      return fmt::format("messages[{}].content must be a string or an array of parts", i);
    out.push_back({m["role"].get<std::string>(), content.is_null() ? json("") : content});
  }
  if (out.back().role == "assistant")
    return "the last message is the assistant's: nothing left to answer";
  return std::nullopt;
}

// ShareGPT turns -> one entry per human turn, each with its history.
std::optional<std::string> expand_conversation(const json& turns, std::vector<DatasetEntry>& out) {
  if (!turns.is_array() || turns.empty()) return "\"conversations\" must be a non-empty array";
  std::vector<Message> history;
  std::vector<DatasetEntry> entries;
  for (size_t i = 0; i < turns.size(); ++i) {
    const json& t = turns[i];
    std::string role, text;
    if (t.is_object() && t.contains("from") && t["from"].is_string() && t.contains("value") &&
        t["value"].is_string()) {
      const std::string from = t["from"];
      role = from == "human" || from == "user" ? "user"
             : from == "system"                ? "system"
                                               : "assistant";  // gpt, chatgpt, bard, bing, ...
      text = t["value"];
    } else if (t.is_object() && t.contains("role") && t["role"].is_string() &&
               t.contains("content") && t["content"].is_string()) {
      role = t["role"];
      text = t["content"];
    } else {
      return fmt::format("conversations[{}] needs string \"from\" and \"value\"", i);
    }
    if (role == "assistant" && !entries.empty() && entries.back().reference.empty() &&
        history.back().role == "user")
      entries.back().reference = text;
    history.push_back({role, json(text)});
    if (role == "user" && !text.empty()) entries.push_back(entry_from_messages(history));
  }
  if (entries.empty()) return "the conversation has no human turn with text";
  for (auto& e : entries) out.push_back(std::move(e));
  return std::nullopt;
}

std::optional<std::string> parse_record(const json& j, std::vector<DatasetEntry>& out) {
  if (!j.is_object()) return "expected a JSON object";
  std::vector<DatasetEntry> entries;
  if (j.contains("prompt")) {
    if (!j["prompt"].is_string() || j["prompt"].get_ref<const std::string&>().empty())
      return "\"prompt\" must be a non-empty string";
    entries.push_back({.prompt = j["prompt"].get<std::string>()});
  } else if (j.contains("messages") && !j.contains("conversations")) {
    std::vector<Message> messages;
    if (auto err = parse_messages(j["messages"], messages)) return err;
    entries.push_back(entry_from_messages(messages));
  } else if (j.contains("conversations") || j.contains("messages")) {
    const json& turns = j.contains("conversations") ? j["conversations"] : j["messages"];
    if (auto err = expand_conversation(turns, entries)) return err;
  } else {
    return "no \"prompt\", \"messages\" or \"conversations\" field";
  }

  int64_t max_tokens = 0;
  if (j.contains("max_tokens") && !j["max_tokens"].is_null()) {
    const json& m = j["max_tokens"];
    if (!m.is_number_integer() || m.get<int64_t>() < 1 || m.get<int64_t>() > kMaxLengthTokens)
      return fmt::format("\"max_tokens\" must be an integer from 1 to {}", kMaxLengthTokens);
    max_tokens = m.get<int64_t>();
  }
  std::string reference, image, request_class;
  for (auto [key, target] : {std::pair<const char*, std::string*>{"reference", &reference},
                             {"image", &image},
                             {"class", &request_class}}) {
    if (!j.contains(key) || j[key].is_null()) continue;
    if (!j[key].is_string()) return fmt::format("\"{}\" must be a string", key);
    *target = j[key].get<std::string>();
  }
  for (DatasetEntry& e : entries) {
    if (max_tokens > 0) e.max_tokens = max_tokens;
    if (!reference.empty()) e.reference = reference;
    e.image = image;
    e.request_class = request_class;
    out.push_back(std::move(e));
  }
  return std::nullopt;
}

void count_bad(DatasetParse& p, int64_t line, std::string message) {
  ++p.bad;
  if (!p.first_bad) p.first_bad = DatasetIssue{line, std::move(message)};
}

}  // namespace

std::optional<DatasetFormat> dataset_format_from_string(std::string_view name) {
  if (name == "auto") return DatasetFormat::auto_detect;
  if (name == "synthetic") return DatasetFormat::synthetic;
  if (name == "jsonl") return DatasetFormat::jsonl;
  if (name == "sharegpt") return DatasetFormat::sharegpt;
  if (name == "images") return DatasetFormat::images;
  return std::nullopt;
}

std::string_view to_string(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::auto_detect:
      return "auto";
    case DatasetFormat::synthetic:
      return "synthetic";
    case DatasetFormat::jsonl:
      return "jsonl";
    case DatasetFormat::sharegpt:
      return "sharegpt";
    case DatasetFormat::images:
      return "images";
  }
  return "auto";
}

std::optional<std::string> parse_jsonl_line(std::string_view line, std::vector<DatasetEntry>& out) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return "not valid JSON: " + what;
  }
  return parse_record(j, out);
}

DatasetParse parse_jsonl(std::string_view text) {
  DatasetParse p;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark
  int64_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t\r\v\f") == std::string_view::npos) continue;
    ++p.records;
    const size_t first = p.entries.size();
    if (auto err = parse_jsonl_line(line, p.entries)) count_bad(p, line_no, std::move(*err));
    for (size_t i = first; i < p.entries.size(); ++i) p.entries[i].line = line_no;
  }
  return p;
}

DatasetParse parse_sharegpt(std::string_view text) {
  DatasetParse p;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    p.records = 1;
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    count_bad(p, 1, "the file is not valid JSON: " + what);
    return p;
  }
  if (!root.is_array()) {
    p.records = 1;
    count_bad(p, 1, "expected a JSON array of conversations");
    return p;
  }
  for (size_t i = 0; i < root.size(); ++i) {
    ++p.records;
    const size_t first = p.entries.size();
    if (auto err = parse_record(root[i], p.entries))
      count_bad(p, static_cast<int64_t>(i) + 1, std::move(*err));
    for (size_t k = first; k < p.entries.size(); ++k)
      p.entries[k].line = static_cast<int64_t>(i) + 1;
  }
  return p;
}

std::optional<DatasetFormat> detect_dataset_format(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  if (text[first] == '[') return DatasetFormat::sharegpt;
  if (text[first] == '{') return DatasetFormat::jsonl;
  return std::nullopt;
}

}  // namespace sb::workload
