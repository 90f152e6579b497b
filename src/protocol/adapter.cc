#include "protocol/adapter.h"

#include "common/error.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {

std::optional<Api> api_from_string(std::string_view s) {
  if (s == "tgi") return Api::tgi;
  if (s == "openai") return Api::openai;
  if (s == "openai-chat") return Api::openai_chat;
  if (s == "generic") return Api::generic;
  if (s == "llamacpp") return Api::llamacpp;
  return std::nullopt;
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
  }
  return "unknown";
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
  }
  throw usage_error("unknown --api value");
}

}  // namespace sb::protocol
