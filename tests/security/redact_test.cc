// common/redact: the one redaction pass, at every split (names, URLs, free text, JSON).
#include "common/redact.h"

#include <gtest/gtest.h>

namespace {

using nlohmann::json;

TEST(SecretName, TheUsualCredentialHeaders) {
  for (const char* n :
       {"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api-key",
        "API_KEY", "apiKey", "x-goog-api-key", "Ocp-Apim-Subscription-Key"})
    EXPECT_TRUE(sb::is_secret_name(n)) << n;
}

TEST(SecretName, AnyNameByPattern) {
  // The names the issue lists outside the old short list, and their kin.
  for (const char* n : {"X-Auth",
                        "Authentication",
                        "My-Credential",
                        "X-Token",
                        "X-Amz-Signature",
                        "X-Amz-Security-Token",
                        "client_secret",
                        "password",
                        "db_passwd",
                        "session_id",
                        "X-Session",
                        "access_token",
                        "refresh-token",
                        "sig",
                        "pass",
                        "pwd",
                        "jwt",
                        "bearer",
                        "AccessToken",
                        "x_auth_header"})
    EXPECT_TRUE(sb::is_secret_name(n)) << n;
}

TEST(SecretName, TokenCountsAndOrdinaryFieldsAreNotSecret) {
  for (const char* n :
       {"max_tokens", "maxTokens", "max_new_tokens", "min_tokens", "skip_special_tokens",
        "tokenizer", "stop_token_ids", "temperature", "top_p", "model", "Content-Type", "X-Tenant",
        "X-Request-Id", "stream", "api-version", "seed", "", "-"})
    EXPECT_FALSE(sb::is_secret_name(n)) << n;
}

TEST(SecretName, CredentialValues) {
  EXPECT_TRUE(sb::is_credential_value("Bearer sk-1"));
  EXPECT_TRUE(sb::is_credential_value("  bearer sk-1"));
  EXPECT_TRUE(sb::is_credential_value("Basic dXNlcjpwYXNz"));
  EXPECT_FALSE(sb::is_credential_value("application/json"));
  EXPECT_FALSE(sb::is_credential_value("Bearer"));  // no token after it
  EXPECT_FALSE(sb::is_credential_value(""));
}

TEST(RedactUrl, Userinfo) {
  EXPECT_EQ(sb::redact_url("http://user:SECRET3@127.0.0.1:8000/v1"),
            "http://user:***@127.0.0.1:8000/v1");
  EXPECT_EQ(sb::redact_url("https://TOKEN@host/x"), "https://***@host/x");
  EXPECT_EQ(sb::redact_url("http://u:p@ss@host"), "http://u:***@host");   // the last '@'
  EXPECT_EQ(sb::redact_url("http://host/path@x"), "http://host/path@x");  // '@' in the path
  EXPECT_EQ(sb::redact_url("http://[::1]:8000/v1"), "http://[::1]:8000/v1");
}

TEST(RedactUrl, SecretQueryAndFragmentValues) {
  EXPECT_EQ(sb::redact_url("http://h:9/metrics?token=SECRET8"), "http://h:9/metrics?token=***");
  EXPECT_EQ(sb::redact_url("/v1/completions?key=SECRET2&model=m"),
            "/v1/completions?key=***&model=m");
  EXPECT_EQ(sb::redact_url("https://a.blob/x?sv=2020&sig=abc%2F&se=1"),
            "https://a.blob/x?sv=2020&sig=***&se=1");
  EXPECT_EQ(sb::redact_url("https://h/cb#access_token=abc&state=1"),
            "https://h/cb#access_token=***&state=1");
  EXPECT_EQ(sb::redact_url("http://h/x?api-version=2024-02-01&max_tokens=5"),
            "http://h/x?api-version=2024-02-01&max_tokens=5");
  EXPECT_EQ(sb::redact_url("http://h/x?token="), "http://h/x?token=");  // nothing to hide
}

TEST(RedactUrl, Idempotent) {
  for (const char* u : {"http://user:SECRET@h/x?token=T&a=1", "http://T@h", "/p?key=K"}) {
    const std::string once = sb::redact_url(u);
    EXPECT_EQ(sb::redact_url(once), once) << u;
    EXPECT_EQ(once.find("SECRET"), std::string::npos);
  }
}

TEST(RedactText, UrlsInsideMessages) {
  EXPECT_EQ(sb::redact_text("server metrics http://h:9/metrics?token=SECRET8: 1 of 2 failed"),
            "server metrics http://h:9/metrics?token=***: 1 of 2 failed");
  EXPECT_EQ(sb::redact_text("cannot reach 'http://u:pw@h:1' (refused)"),
            "cannot reach 'http://u:***@h:1' (refused)");
  EXPECT_EQ(sb::redact_text("two: http://a@x and https://b:c@y."),
            "two: http://***@x and https://b:***@y.");
  EXPECT_EQ(sb::redact_text("endpoint /v1/c?key=SECRET2, retrying"),
            "endpoint /v1/c?key=***, retrying");
}

TEST(RedactText, BearerTokens) {
  EXPECT_EQ(sb::redact_text("sent Authorization: Bearer sk-abc123 to h"),
            "sent Authorization: Bearer *** to h");
  EXPECT_EQ(sb::redact_text("bearer xyz"), "bearer ***");
}

TEST(RedactText, AnthropicKeyHeader) {
  // --api anthropic sends the key as x-api-key, not as a bearer token.
  EXPECT_EQ(sb::redact_text("sent x-api-key: sk-ant-api03-abc, got 401"),
            "sent x-api-key: ***, got 401");
  EXPECT_EQ(sb::redact_text("X-Api-Key:sk-ant-1"), "X-Api-Key:***");
  EXPECT_EQ(sb::redact_text(sb::redact_text("x-api-key: k1 and x-api-key: k2")),
            "x-api-key: *** and x-api-key: ***");
}

TEST(RedactText, OrdinaryTextUnchanged) {
  for (const char* t : {"--concurrency 0: must be at least 1", "tokens/s: 12.5 in, 3 out", "a?b",
                        "x&y=1", "http://127.0.0.1:8000/v1/completions", ""})
    EXPECT_EQ(sb::redact_text(t), t) << t;
}

TEST(RedactJson, SecretMembersAtAnyDepth) {
  const json body = {{"api_key", "SECRET1"},
                     {"temperature", 0},
                     {"max_tokens", 16},
                     {"nested", {{"auth", {{"user", "u"}, {"pw", "p"}}}, {"ok", "yes"}}},
                     {"list", json::array({{{"token", "T"}}, 3})}};
  const json r = sb::redact_secret_members(body);
  EXPECT_EQ(r["api_key"], "<redacted>");
  EXPECT_EQ(r["temperature"], 0);
  EXPECT_EQ(r["max_tokens"], 16);
  EXPECT_EQ(r["nested"]["auth"], "<redacted>");
  EXPECT_EQ(r["nested"]["ok"], "yes");
  EXPECT_EQ(r["list"][0]["token"], "<redacted>");
  EXPECT_EQ(r["list"][1], 3);
  EXPECT_EQ(sb::redact_secret_members(r), r);
  EXPECT_EQ(sb::redact_secret_members(json("x")), json("x"));
}

TEST(RedactJson, StringsEverywhere) {
  json j = {{"url", "http://h/m?token=S"},
            {"warnings", json::array({"from http://u:p@h"})},
            {"n", 3},
            {"http://a@b", "key of an object"}};
  sb::redact_strings(j);
  EXPECT_EQ(j["url"], "http://h/m?token=***");
  EXPECT_EQ(j["warnings"][0], "from http://u:***@h");
  EXPECT_EQ(j["n"], 3);
  EXPECT_TRUE(j.contains("http://***@b"));
  EXPECT_FALSE(j.contains("http://a@b"));
}

}  // namespace
