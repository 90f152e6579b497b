#pragma once
// What sim/api.cc shares with sim/api_events.cc (the Responses and Anthropic APIs); internal
// to the simulator's wire formats.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/api.h"

namespace sb::sim::detail {

// One generation request body being parsed: the request so far, and what the shared
// tail of parse_generate needs. Each step returns the first error, in the order the
// real servers check.
struct BodyParse {
  ApiKind api;
  const SimConfig& cfg;
  GenRequest r;
  std::string prompt_hash_src;     // the prompt's text (or token ids): seeds the output words
  std::optional<int64_t> max_new;  // the body's token limit, then the API's default
};

// FNV-1a of `s`: seeds what a request's text selects (output words, vectors, scores).
uint64_t hash_text(std::string_view s);
// An error of `api` with `status` and its error body carrying `message`.
HttpError fail(ApiKind api, int status, std::string message);
// Text of a chat message "content": a string or an array of parts ({"text": ..} each);
// nullopt for anything else.
std::optional<std::string> content_text(const nlohmann::json& c);

// POST /v1/responses and POST /v1/messages bodies (sim/api_events.cc).
std::optional<HttpError> parse_responses(BodyParse& b, const nlohmann::json& j);
std::optional<HttpError> parse_anthropic(BodyParse& b, const nlohmann::json& j);
// error_body of ApiKind::responses and ApiKind::anthropic.
std::string events_error_body(ApiKind api, int status, std::string_view message);

}  // namespace sb::sim::detail
