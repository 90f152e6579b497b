#pragma once
// summary.json without the secrets it could carry: applied by summary_to_json (every writer
// of summary.json) and by the report's reader (a folder written by an older servebench).
#include <nlohmann/json.hpp>

namespace sb::results {

// `config` with the values of its secret headers (common/redact.h is_secret_name, or a
// "Bearer ..." value) and its api_key as "<redacted>", the secret members of extra_body
// redacted at any depth, and its URLs (base_url, endpoints, endpoint, server_metrics)
// redacted by redact_url. Idempotent.
nlohmann::json redact_config(nlohmann::json config);

// A whole summary: its config as redact_config, then redact_text over every string of the
// document (telemetry sources' URLs, warnings, errors, a distributed run's ranks).
nlohmann::json redact_summary(nlohmann::json summary);

}  // namespace sb::results
