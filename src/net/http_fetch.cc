#include "net/http_fetch.h"

#include <fmt/format.h>

#include "common/asio.h"
#include "common/error.h"
#include "net/connection.h"
#include "net/url.h"

namespace sb::net {
namespace {

awaitable<void> exchange(Connection& conn, const std::string& request, TimePoint deadline,
                         HttpFetchResult& out) {
  NetResult r = co_await conn.connect(deadline);
  if (r.ok()) r = co_await conn.write(request, deadline);
  if (r.ok()) r = co_await conn.read_header(deadline);
  if (r.ok()) {
    out.status = conn.status();
    out.content_type = conn.content_type();
    while (r.ok() && !conn.body_done()) {
      std::string_view chunk;
      TimePoint arrived;
      r = co_await conn.read_body(deadline, chunk, arrived);
      out.body.append(chunk);
    }
  }
  if (!r.ok()) {
    out.error = r.status == NetStatus::too_large
                    ? fmt::format("body over the limit ({})", r.message)
                    : r.message;
    co_return;
  }
  if (out.status < 200 || out.status > 299) {
    out.error = fmt::format("HTTP {}", out.status);
    co_return;
  }
  out.ok = true;
}

}  // namespace

HttpFetchResult http_fetch(const std::string& url, const HttpFetchOptions& o) {
  HttpFetchResult out;
  const TimePoint start = Clock::now();
  std::string base = url, query;
  if (const auto q = url.find('?'); q != std::string::npos) {
    base = url.substr(0, q);
    query = url.substr(q);
  }
  try {
    ClientOptions copts;
    copts.url = parse_url(base);
    copts.max_response_bytes = o.max_body_bytes;
    const ClientContext ctx(copts);
    std::string target = copts.url.path_prefix.empty() ? "/" : copts.url.path_prefix;
    target += query;
    std::string request;
    const std::string host = copts.url.host_header();
    serialize_request(request,
                      RequestHead{.method = o.method,
                                  .target = target,
                                  .host_header = host,
                                  .accept = o.accept,
                                  .extra_headers = "Connection: close\r\n"},
                      o.body);
    if (o.method != "POST" && o.method != "GET" && o.body.empty())
      request.insert(request.find("\r\n\r\n"), "\r\nContent-Length: 0");
    asio::io_context io;
    Connection conn(io.get_executor(), ctx);
    asio::co_spawn(io, exchange(conn, request, start + o.timeout, out),
                   // The connection's lazy deadline timer stays armed: stop the loop
                   // as soon as the exchange ends instead of waiting for it.
                   [&io](std::exception_ptr) { io.stop(); });
    io.run();
    conn.close();
  } catch (const std::exception& e) {
    out.ok = false;
    out.error = e.what();
  }
  out.elapsed_ms = to_ms(Clock::now() - start);
  return out;
}

}  // namespace sb::net
