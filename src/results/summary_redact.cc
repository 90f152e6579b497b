#include "results/summary_redact.h"

#include "common/redact.h"

namespace sb::results {

using nlohmann::json;

json redact_config(json config) {
  if (!config.is_object()) return config;
  if (auto h = config.find("headers"); h != config.end() && h->is_object())
    for (auto& [name, value] : h->items())
      if (is_secret_name(name) ||
          (value.is_string() && is_credential_value(value.get<std::string>())))
        value = kRedacted;
  if (auto k = config.find("api_key"); k != config.end() && !k->is_null()) *k = kRedacted;
  if (auto b = config.find("extra_body"); b != config.end()) *b = redact_secret_members(*b);
  redact_strings(config);
  return config;
}

json redact_summary(json summary) {
  if (!summary.is_object()) return summary;
  if (auto c = summary.find("config"); c != summary.end()) *c = redact_config(std::move(*c));
  redact_strings(summary);
  return summary;
}

}  // namespace sb::results
