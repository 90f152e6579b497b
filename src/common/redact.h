#pragma once
// The one redaction pass: what servebench writes or prints (summary.json, index, report,
// stderr, MPI messages) goes through these, so a credential given to it never leaves.
// Pure functions, idempotent: redacting redacted text changes nothing.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sb {

// Replaces a whole secret value (a header's, an --extra-body field's, the API key).
inline constexpr std::string_view kRedacted = "<redacted>";
// Replaces the secret part of a URL (a password, a query value).
inline constexpr std::string_view kMasked = "***";

// True for names whose values are secrets: header names, URL query keys, JSON keys.
// Case-insensitive; the name is split into words at non-alphanumerics and camelCase. Secret:
// a word containing auth, token, secret, key, credential, password, passwd, signature,
// session, cookie or bearer, or a word that is sig, pass, pwd or jwt (Authorization,
// Proxy-Authorization, Cookie, X-Api-Key, X-Auth, Authentication, My-Credential, X-Token,
// apiKey, X-Amz-Signature, sig). Not secret: token counts and the tokenizer (max_tokens,
// maxTokens, skip_special_tokens, tokenizer) and token ids (stop_token_ids).
bool is_secret_name(std::string_view name);

// True for values that carry a credential whatever their name: "Bearer ...", "Basic ...".
bool is_credential_value(std::string_view value);

// `url` with its userinfo masked (http://user:***@host, http://***@host) and the value of
// every query or fragment parameter with a secret name masked (?key=***&model=m).
// Works on a bare path too (/v1/completions?key=*** ). Anything else is kept as is.
std::string redact_url(std::string_view url);

// Free text (an error message, a warning) with every URL in it redacted as redact_url does,
// every `?name=value` / `&name=value` with a secret name masked wherever it stands, and the
// token after "Bearer " / "Basic " masked, and the value after "x-api-key:" (Anthropic's key).
std::string redact_text(std::string_view text);

// A copy of `j` in which the value of every object member with a secret name (at any depth)
// is kRedacted (an --extra-body of {"api_key": "..."}, {"auth": {...}}).
nlohmann::json redact_secret_members(const nlohmann::json& j);

// Applies redact_text to every string in `j` (values and member names, at any depth).
void redact_strings(nlohmann::json& j);

}  // namespace sb
