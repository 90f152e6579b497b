#include "protocol/adapter.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {

std::optional<Api> api_from_string(std::string_view s) {
  if (s == "tgi") return Api::tgi;
  if (s == "openai") return Api::openai;
  if (s == "openai-chat") return Api::openai_chat;
  if (s == "generic") return Api::generic;
  if (s == "llamacpp") return Api::llamacpp;
  if (s == "openai-responses") return Api::openai_responses;
  if (s == "anthropic") return Api::anthropic;
  if (s == "embeddings") return Api::embeddings;
  if (s == "rerank") return Api::rerank;
  return std::nullopt;
}

std::string api_choices(bool with_generic) {
  return with_generic ? "tgi, openai, openai-chat, generic, llamacpp, openai-responses, "
                        "anthropic, embeddings or rerank"
                      : "tgi, openai, openai-chat, llamacpp, openai-responses, anthropic, "
                        "embeddings or rerank";
}

std::string_view to_string(Api api) {
  switch (api) {
    case Api::tgi:
      return "tgi";
    case Api::openai:
      return "openai";
    case Api::openai_chat:
      return "openai-chat";
    case Api::generic:
      return "generic";
    case Api::llamacpp:
      return "llamacpp";
    case Api::openai_responses:
      return "openai-responses";
    case Api::anthropic:
      return "anthropic";
    case Api::embeddings:
      return "embeddings";
    case Api::rerank:
      return "rerank";
  }
  return "unknown";
}

namespace {
bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}
}  // namespace

std::string api_headers(Api api, std::string_view api_key,
                        const std::vector<std::pair<std::string, std::string>>& user_headers) {
  if (api != Api::anthropic)
    return api_key.empty() ? std::string() : fmt::format("Authorization: Bearer {}\r\n", api_key);
  // Anthropic (docs.anthropic.com, API overview): the key in x-api-key, and the API version
  // every request must name.
  std::string h = api_key.empty() ? std::string() : fmt::format("x-api-key: {}\r\n", api_key);
  const bool versioned = std::any_of(user_headers.begin(), user_headers.end(), [](const auto& kv) {
    return same_name(kv.first, "anthropic-version");
  });
  if (!versioned) h += "anthropic-version: 2023-06-01\r\n";
  return h;
}

std::unique_ptr<Adapter> make_adapter(const AdapterConfig& config) {
  check_extra_body(config.extra_body);
  switch (config.api) {
    case Api::tgi:
      return make_tgi_adapter(config);
    case Api::openai:
      return make_openai_adapter(config);
    case Api::openai_chat:
      return make_openai_chat_adapter(config);
    case Api::generic:
      return make_generic_adapter(config);
    case Api::llamacpp:
      return make_llamacpp_adapter(config);
    case Api::openai_responses:
      return make_openai_responses_adapter(config);
    case Api::anthropic:
      return make_anthropic_adapter(config);
    case Api::embeddings:
    case Api::rerank:
      return make_pooling_adapter(config);
  }
  throw usage_error("unknown --api value");
}

}  // namespace sb::protocol
