// The simulator's two APIs of named SSE events ("event: TYPE\ndata: {"type":TYPE,...}\n\n"),
// requests, responses and errors (docs/simulator.md §1):
// - OpenAI Responses, POST /v1/responses (platform.openai.com/docs/api-reference/responses):
//   response.created, response.in_progress, response.output_item.added,
//   response.content_part.added, one response.output_text.delta per token, then
//   response.output_text.done, response.content_part.done, response.output_item.done and
//   response.completed (the model stopped: EOS) or response.incomplete (max_output_tokens
//   reached, incomplete_details.reason "max_output_tokens"), whose response has the usage.
//   Every event has a sequence_number from 0. No [DONE].
// - Anthropic Messages, POST /v1/messages (docs.anthropic.com, Streaming Messages):
//   message_start (usage.input_tokens, output_tokens 1), content_block_start, ping, one
//   content_block_delta (text_delta) per token, content_block_stop, message_delta
//   (stop_reason end_turn | max_tokens, usage.output_tokens), message_stop.
// Reasoning (SimConfig text.reasoning_length, GenRequest::reasoning_tokens R > 0): Responses
// opens a "reasoning" item (output_index 0, id rs_...) with a reasoning_text part, sends one
// response.reasoning_text.delta per reasoning token, then before the first content token
// response.reasoning_text.done, content_part.done and output_item.done of it and the message
// item's output_item.added and content_part.added (output_index 1); usage
// output_tokens_details.reasoning_tokens = R. Anthropic starts a "thinking" block (index 0),
// one thinking_delta per reasoning token, then a signature_delta and content_block_stop, and
// the text block at index 1; usage.output_tokens counts the thinking (the API has no separate
// count). Without content tokens (R == output_tokens) the message item or text block is
// still opened and closed, empty.
// The start events go out with the first token, as the chat role chunk does. Usage is exactly
// what was sent; no cache fields (the prefix cache's hits are not kept per request).
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/api_internal.h"

namespace sb::sim {
namespace detail {
namespace {

using nlohmann::json;

std::string quote(std::string_view s) {
  return json(std::string(s)).dump();
}

// A chat-like message's share of the prompt: its text's tokens plus the template's.
void count_message(BodyParse& b, const std::string& text) {
  b.r.prompt_tokens +=
      count_text_tokens(text, b.cfg.text.chars_per_token) + b.cfg.text.chat_tokens_per_message;
  b.prompt_hash_src += text;
  b.prompt_hash_src += '\n';
}

// An optional positive integer length field (null: absent).
std::optional<HttpError> length_field(BodyParse& b, const json& j, const char* key) {
  auto m = j.find(key);
  if (m == j.end() || m->is_null()) return std::nullopt;
  if (!m->is_number_integer() || m->get<int64_t>() < 1)
    return fail(
        b.api, 400,
        fmt::format("{}: Input should be an integer of at least 1, got {}", key, m->dump()));
  b.max_new = m->get<int64_t>();
  return std::nullopt;
}

// stream, ignore_eos (vLLM-style, for benchmarks), seed.
std::optional<HttpError> common_options(BodyParse& b, const json& j) {
  if (auto s = j.find("stream"); s != j.end() && !s->is_null()) {
    if (!s->is_boolean()) return fail(b.api, 400, "stream: Input should be a valid boolean");
    b.r.stream = s->get<bool>();
  }
  if (auto e = j.find("ignore_eos"); e != j.end() && e->is_boolean())
    b.r.ignore_eos = e->get<bool>();
  if (auto s = j.find("seed"); s != j.end() && s->is_number_integer())
    b.r.seed = s->get<uint64_t>();
  if (auto m = j.find("model"); m != j.end() && m->is_string()) b.r.model = m->get<std::string>();
  return std::nullopt;
}

// Chat messages: a non-empty array of {role: string, content: string or text parts}.
std::optional<HttpError> messages(BodyParse& b, const json& ms, std::string_view field) {
  if (!ms.is_array() || ms.empty())
    return fail(b.api, 400, fmt::format("{}: Input should be a non-empty list", field));
  for (const auto& m : ms) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return fail(b.api, 400,
                  fmt::format("{}: each item must be a message with a string role", field));
    auto c = m.find("content");
    std::optional<std::string> text = c == m.end() ? std::string() : content_text(*c);
    if (!text)
      return fail(b.api, 400, fmt::format("{}.content: Input should be a valid string", field));
    count_message(b, *text);
  }
  return std::nullopt;
}

// The default length (what the context leaves), then the context check.
std::optional<HttpError> context_check(BodyParse& b, std::string_view what) {
  const SimConfig& cfg = b.cfg;
  const int64_t prompt = b.r.prompt_tokens;
  if (!b.max_new) b.max_new = std::max<int64_t>(1, cfg.sched.max_total_tokens - prompt);
  if (prompt > cfg.sched.max_input_tokens || prompt + *b.max_new > cfg.sched.max_total_tokens)
    return fail(b.api, 400,
                fmt::format("{}: {} prompt tokens + {} = {} > {} maximum", what, prompt, *b.max_new,
                            prompt + *b.max_new, cfg.sched.max_total_tokens));
  return std::nullopt;
}

}  // namespace

// {"model", "input": string | [items], "instructions"?, "max_output_tokens"?, "stream"}:
// a string input is one user message; "instructions" counts as one more.
std::optional<HttpError> parse_responses(BodyParse& b, const json& j) {
  auto in = j.find("input");
  if (in == j.end()) return fail(b.api, 400, "Missing required parameter: 'input'.");
  if (in->is_string()) {
    if (in->get_ref<const std::string&>().empty())
      return fail(b.api, 400, "Invalid 'input': empty string.");
    count_message(b, in->get<std::string>());
  } else if (auto err = messages(b, *in, "input")) {
    return err;
  }
  if (auto ins = j.find("instructions"); ins != j.end() && ins->is_string())
    count_message(b, ins->get<std::string>());
  if (auto err = length_field(b, j, "max_output_tokens")) return err;
  if (auto err = common_options(b, j)) return err;
  return context_check(b, "Your input exceeds the context window of this model");
}

// {"model", "max_tokens" (required), "messages", "system"?, "stream"}: "system" (a string
// or text blocks) counts as one message.
std::optional<HttpError> parse_anthropic(BodyParse& b, const json& j) {
  auto mt = j.find("max_tokens");
  if (mt == j.end() || mt->is_null()) return fail(b.api, 400, "max_tokens: Field required");
  if (auto err = length_field(b, j, "max_tokens")) return err;
  auto ms = j.find("messages");
  if (ms == j.end()) return fail(b.api, 400, "messages: Field required");
  if (auto err = messages(b, *ms, "messages")) return err;
  if (auto sys = j.find("system"); sys != j.end() && !sys->is_null()) {
    std::optional<std::string> text = content_text(*sys);
    if (!text) return fail(b.api, 400, "system: Input should be a valid string");
    count_message(b, *text);
  }
  if (auto err = common_options(b, j)) return err;
  return context_check(b, "prompt is too long");
}

std::string events_error_body(ApiKind api, int status, std::string_view message) {
  if (api == ApiKind::anthropic) {  // docs.anthropic.com/en/api/errors
    const std::string_view type = status == 529 || status == 503   ? "overloaded_error"
                                  : status == 429                  ? "rate_limit_error"
                                  : status == 401                  ? "authentication_error"
                                  : status == 403                  ? "permission_error"
                                  : status == 404                  ? "not_found_error"
                                  : status == 413                  ? "request_too_large"
                                  : status == 408 || status == 504 ? "timeout_error"
                                  : status >= 500                  ? "api_error"
                                                                   : "invalid_request_error";
    return fmt::format(R"({{"type":"error","error":{{"type":"{}","message":{}}}}})", type,
                       quote(message));
  }
  // OpenAI's error object: {"error": {"message", "type", "param", "code"}}.
  const std::string_view type = status == 429   ? "rate_limit_error"
                                : status >= 500 ? "server_error"
                                                : "invalid_request_error";
  const std::string code = status == 429   ? "\"rate_limit_exceeded\""
                           : status == 503 ? "\"overloaded\""
                                           : "null";
  return fmt::format(R"({{"error":{{"message":{},"type":"{}","param":null,"code":{}}}}})",
                     quote(message), type, code);
}

}  // namespace detail

using detail::quote;

namespace {

std::string id_hex(const std::string& id) {
  const size_t underscore = id.find('_');
  return underscore == std::string::npos ? id : id.substr(underscore + 1);
}

// A Responses reasoning item: {"id", "type": "reasoning", "summary": [], "content":
// [{"type": "reasoning_text", "text"}]} (openai-python ResponseReasoningItem).
std::string reasoning_item(const std::string& id, std::string_view text) {
  return fmt::format(R"({{"id":"{}","type":"reasoning","summary":[],)"
                     R"("content":[{{"type":"reasoning_text","text":{}}}]}})",
                     id, quote(text));
}

}  // namespace

std::string Formatter::item_id() const {
  return "msg_" + id_hex(id_);
}

std::string Formatter::reasoning_item_id() const {
  return "rs_" + id_hex(id_);
}

// The response object with `status` ("in_progress": no output, usage null).
std::string Formatter::responses_object(std::string_view status, std::string_view reasoning,
                                        std::string_view text) const {
  std::string output = "[]", usage = "null", incomplete = "null";
  if (status != "in_progress") {
    const std::string message =
        fmt::format(R"({{"id":"{}","type":"message","status":"{}","role":"assistant","content":[)"
                    R"({{"type":"output_text","annotations":[],"logprobs":[],"text":{}}}]}})",
                    item_id(), status == "incomplete" ? "incomplete" : "completed", quote(text));
    output = req_.reasoning_tokens > 0
                 ? "[" + reasoning_item(reasoning_item_id(), reasoning) + "," + message + "]"
                 : "[" + message + "]";
    usage = fmt::format(R"({{"input_tokens":{},"output_tokens":{},)"
                        R"("output_tokens_details":{{"reasoning_tokens":{}}},"total_tokens":{}}})",
                        req_.prompt_tokens, req_.output_tokens, req_.reasoning_tokens,
                        req_.prompt_tokens + req_.output_tokens);
    if (status == "incomplete") incomplete = R"({"reason":"max_output_tokens"})";
  }
  return fmt::format(
      R"({{"id":"{}","object":"response","created_at":{},"status":"{}","error":null,)"
      R"("incomplete_details":{},"max_output_tokens":{},"model":{},"output":{},"usage":{}}})",
      id_, created_, status, incomplete, req_.max_new_tokens, model_json_, output, usage);
}

std::string Formatter::responses_message_open(int64_t seq, int output_index) const {
  return fmt::format(
      "event: response.output_item.added\ndata: {{\"type\":\"response.output_item.added\","
      "\"sequence_number\":{},\"output_index\":{},\"item\":{{\"id\":\"{}\",\"type\":\"message\","
      "\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}}}}\n\n"
      "event: response.content_part.added\ndata: {{\"type\":\"response.content_part.added\","
      "\"sequence_number\":{},\"item_id\":\"{}\",\"output_index\":{},\"content_index\":0,"
      "\"part\":{{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"\"}}}}"
      "\n\n",
      seq, output_index, item_id(), seq + 1, item_id(), output_index);
}

std::string Formatter::responses_reasoning_to_message(int64_t seq) const {
  const std::string rs = reasoning_item_id();
  const std::string text = quote(reasoning_);
  return fmt::format(
             "event: response.reasoning_text.done\ndata: {{\"type\":"
             "\"response.reasoning_text.done\",\"sequence_number\":{},\"item_id\":\"{}\","
             "\"output_index\":0,\"content_index\":0,\"text\":{}}}\n\n"
             "event: response.content_part.done\ndata: {{\"type\":\"response.content_part.done\","
             "\"sequence_number\":{},\"item_id\":\"{}\",\"output_index\":0,\"content_index\":0,"
             "\"part\":{{\"type\":\"reasoning_text\",\"text\":{}}}}}\n\n"
             "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\","
             "\"sequence_number\":{},\"output_index\":0,\"item\":{}}}\n\n",
             seq, rs, text, seq + 1, rs, text, seq + 2, reasoning_item(rs, reasoning_)) +
         responses_message_open(seq + 3, 1);
}

std::string Formatter::anthropic_thinking_to_text() const {
  return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
         "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ltdWxhdGVk\"}}\n\n"
         "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
         "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
         "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
}

std::string Formatter::events_start() const {
  const bool reasons = req_.reasoning_tokens > 0;
  if (req_.api == ApiKind::anthropic)
    return fmt::format(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"{}\","
        "\"type\":\"message\",\"role\":\"assistant\",\"model\":{},\"content\":[],"
        "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},"
        "\"output_tokens\":1}}}}}}\n\n"
        "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{}}}\n\n"
        "event: ping\ndata: {{\"type\": \"ping\"}}\n\n",
        id_, model_json_, req_.prompt_tokens,
        reasons ? R"({"type":"thinking","thinking":"","signature":""})"
                : R"({"type":"text","text":""})");
  const std::string object = responses_object("in_progress", "", "");
  std::string out = fmt::format(
      "event: response.created\ndata: {{\"type\":\"response.created\",\"sequence_number\":0,"
      "\"response\":{}}}\n\n"
      "event: response.in_progress\ndata: {{\"type\":\"response.in_progress\","
      "\"sequence_number\":1,\"response\":{}}}\n\n",
      object, object);
  if (!reasons) return out + responses_message_open(2, 0);
  const std::string rs = reasoning_item_id();
  fmt::format_to(
      std::back_inserter(out),
      "event: response.output_item.added\ndata: {{\"type\":\"response.output_item.added\","
      "\"sequence_number\":2,\"output_index\":0,\"item\":{{\"id\":\"{}\",\"type\":\"reasoning\","
      "\"summary\":[],\"content\":[]}}}}\n\n"
      "event: response.content_part.added\ndata: {{\"type\":\"response.content_part.added\","
      "\"sequence_number\":3,\"item_id\":\"{}\",\"output_index\":0,\"content_index\":0,"
      "\"part\":{{\"type\":\"reasoning_text\",\"text\":\"\"}}}}\n\n",
      rs, rs);
  return out;
}

void Formatter::append_event_token(std::string& out, int64_t index, Token t) {
  auto to = std::back_inserter(out);
  const int64_t r = req_.reasoning_tokens;
  const bool reasoning = reasoning_at(index);
  const bool first_content = r > 0 && index == r + 1;
  if (req_.api == ApiKind::anthropic) {
    if (first_content) out += anthropic_thinking_to_text();
    if (reasoning)
      fmt::format_to(to,
                     "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\","
                     "\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\"{}\"}}}}"
                     "\n\n",
                     t.text);
    else
      fmt::format_to(to,
                     "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\","
                     "\"index\":{},\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}\n\n",
                     r > 0 ? 1 : 0, t.text);
    return;
  }
  if (reasoning) {
    reasoning_.append(t.text);
    fmt::format_to(to,
                   "event: response.reasoning_text.delta\ndata: {{\"type\":"
                   "\"response.reasoning_text.delta\",\"sequence_number\":{},\"item_id\":\"{}\","
                   "\"output_index\":0,\"content_index\":0,\"delta\":\"{}\"}}\n\n",
                   3 + index, reasoning_item_id(), t.text);
    return;
  }
  if (first_content) out += responses_reasoning_to_message(4 + r);
  text_.append(t.text);
  // Reasoning adds five events before the message's: its three closing, the message's two
  // opening ones in place of the first two.
  const int64_t off = r > 0 ? 5 : 0;
  fmt::format_to(to,
                 "event: response.output_text.delta\ndata: {{\"type\":"
                 "\"response.output_text.delta\",\"sequence_number\":{},\"item_id\":\"{}\","
                 "\"output_index\":{},\"content_index\":0,\"delta\":\"{}\",\"logprobs\":[]}}\n\n",
                 3 + off + index, item_id(), r > 0 ? 1 : 0, t.text);
}

std::string Formatter::events_end() const {
  const int64_t n = req_.output_tokens;
  const int64_t r = req_.reasoning_tokens;
  // Every token was reasoning: the message (text block) still opens, empty.
  const bool no_content = r > 0 && r == n;
  if (req_.api == ApiKind::anthropic)
    return fmt::format(
        "{}event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{}}}\n\n"
        "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":"
        "\"{}\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":{}}}}}\n\n"
        "event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
        no_content ? anthropic_thinking_to_text() : "", r > 0 ? 1 : 0, finish_reason(), n);
  const int64_t off = r > 0 ? 5 : 0;
  const int out_index = r > 0 ? 1 : 0;
  const std::string text = quote(text_);
  const std::string_view status = finish_reason();
  const std::string_view item_status = status == "incomplete" ? "incomplete" : "completed";
  return fmt::format(
      "{}event: response.output_text.done\ndata: {{\"type\":\"response.output_text.done\","
      "\"sequence_number\":{},\"item_id\":\"{}\",\"output_index\":{},\"content_index\":0,"
      "\"text\":{},\"logprobs\":[]}}\n\n"
      "event: response.content_part.done\ndata: {{\"type\":\"response.content_part.done\","
      "\"sequence_number\":{},\"item_id\":\"{}\",\"output_index\":{},\"content_index\":0,"
      "\"part\":{{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":{}}}}}\n\n"
      "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\","
      "\"sequence_number\":{},\"output_index\":{},\"item\":{{\"id\":\"{}\",\"type\":\"message\","
      "\"status\":\"{}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\","
      "\"annotations\":[],\"logprobs\":[],\"text\":{}}}]}}}}\n\n"
      "event: response.{}\ndata: {{\"type\":\"response.{}\",\"sequence_number\":{},"
      "\"response\":{}}}\n\n",
      no_content ? responses_reasoning_to_message(4 + r) : "", 4 + off + n, item_id(), out_index,
      text, 5 + off + n, item_id(), out_index, text, 6 + off + n, out_index, item_id(), item_status,
      text, status, status, 7 + off + n, responses_object(status, reasoning_, text_));
}

std::string Formatter::events_full_response(std::string_view reasoning,
                                            std::string_view text) const {
  if (req_.api == ApiKind::anthropic) {
    const std::string thinking =
        req_.reasoning_tokens > 0
            ? fmt::format(R"({{"type":"thinking","thinking":{},"signature":"c2ltdWxhdGVk"}},)",
                          quote(reasoning))
            : "";
    return fmt::format(R"({{"id":"{}","type":"message","role":"assistant","model":{},"content":[)"
                       R"({}{{"type":"text","text":{}}}],"stop_reason":"{}","stop_sequence":null,)"
                       R"("usage":{{"input_tokens":{},"output_tokens":{}}}}})",
                       id_, model_json_, thinking, quote(text), finish_reason(), req_.prompt_tokens,
                       req_.output_tokens);
  }
  return responses_object(finish_reason(), reasoning, text);
}

}  // namespace sb::sim
