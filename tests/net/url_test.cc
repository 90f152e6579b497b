#include "net/url.h"

#include "net/connection.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::net {
namespace {

TEST(Url, PlainHostPortAndPrefix) {
  const Url u = parse_url("http://127.0.0.1:8000/v1/");
  EXPECT_FALSE(u.tls);
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8000);
  EXPECT_EQ(u.path_prefix, "/v1");
  EXPECT_EQ(u.target("/chat/completions"), "/v1/chat/completions");
  EXPECT_EQ(u.host_header(), "127.0.0.1:8000");
  EXPECT_EQ(u.to_string(), "http://127.0.0.1:8000/v1");
}

TEST(Url, DefaultPortsAreOmittedFromHostHeader) {
  const Url a = parse_url("https://api.example.com");
  EXPECT_TRUE(a.tls);
  EXPECT_EQ(a.port, 443);
  EXPECT_EQ(a.host_header(), "api.example.com");
  EXPECT_EQ(a.path_prefix, "");
  const Url b = parse_url("http://localhost");
  EXPECT_EQ(b.port, 80);
  EXPECT_EQ(b.target("/generate"), "/generate");
}

TEST(Url, Ipv6Literal) {
  const Url u = parse_url("http://[::1]:9000");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, 9000);
  EXPECT_EQ(u.host_header(), "[::1]:9000");
}

TEST(Url, BadInputNamesTheFlag) {
  for (const char* bad :
       {"", "ftp://x", "127.0.0.1:8000", "http://", "http://h:0", "http://h:70000", "http://h:12ab",
        "http://[::1", "http://u:p@h", "http://h/v1?x=1"}) {
    try {
      parse_url(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage) << bad;
      EXPECT_NE(std::string(e.what()).find("--base-url"), std::string::npos) << e.what();
    }
  }
}

TEST(SerializeRequest, WritesHeadersAndBody) {
  std::string out;
  serialize_request(out,
                    RequestHead{.target = "/v1/completions",
                                .host_header = "h:1",
                                .accept = "text/event-stream",
                                .extra_headers = "X-A: 1\r\n"},
                    R"({"a":1})");
  EXPECT_EQ(
      out.rfind("POST /v1/completions HTTP/1.1\r\nHost: h:1\r\nAccept: text/event-stream\r\n", 0),
      0u);
  EXPECT_NE(out.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_NE(out.find("X-A: 1\r\n\r\n{\"a\":1}"), std::string::npos);
}

}  // namespace
}  // namespace sb::net
