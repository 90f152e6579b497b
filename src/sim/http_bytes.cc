#include "sim/http_bytes.h"

#include "sim/warning_pragmas.h"

#include <chrono>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace sb::sim {

std::string http_response(int status, std::string_view content_type, std::string_view body,
                          bool keep_alive, std::string_view extra_headers) {
  std::string ct =
      content_type.empty() ? std::string() : fmt::format("content-type: {}\r\n", content_type);
  // 529 (Anthropic's overloaded) is not a registered status: Beast has no phrase for it.
  const auto phrase = http::obsolete_reason(static_cast<http::status>(status));
  const std::string_view reason = status == 529 ? std::string_view("Overloaded")
                                                : std::string_view(phrase.data(), phrase.size());
  return fmt::format("HTTP/1.1 {} {}\r\n{}content-length: {}\r\n{}{}\r\n{}", status, reason, ct,
                     body.size(), extra_headers, keep_alive ? "" : "connection: close\r\n", body);
}

void append_chunk(std::string& out, std::string_view data) {
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:x}\r\n{}\r\n"), data.size(), data);
}

std::string chunk(std::string_view data) {
  std::string out;
  append_chunk(out, data);
  return out;
}

awaitable<void> sleep_ms(int64_t ms) {
  asio::steady_timer t(co_await asio::this_coro::executor);
  t.expires_after(std::chrono::milliseconds(ms));
  boost::system::error_code ec;
  co_await t.async_wait(asio::redirect_error(use_awaitable, ec));
}

awaitable<bool> write_all(asio::ip::tcp::socket& sock, const std::string& bytes) {
  // A token's few hundred bytes nearly always fit the socket's buffer: one non-blocking send,
  // and the coroutine goes on without suspending. An async write's completion would be a
  // trip through the event loop's queue for every token (issue 21 item 5: ~1 us of CPU a
  // token). Only what the kernel did not take is awaited.
  boost::system::error_code ec;
  if (!sock.non_blocking()) sock.non_blocking(true, ec);
  size_t done = ec ? 0 : sock.write_some(asio::buffer(bytes), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again)
    ec = {};
  else if (ec)
    co_return false;
  if (done == bytes.size()) co_return true;
  co_await asio::async_write(sock, asio::buffer(bytes.data() + done, bytes.size() - done),
                             asio::redirect_error(use_awaitable, ec));
  co_return !ec;
}

}  // namespace sb::sim
