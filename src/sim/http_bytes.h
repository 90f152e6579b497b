#pragma once
// The simulator's raw HTTP/1.1 response bytes, and the coroutine helpers that write
// them. Responses are written as bytes (fixed-length bodies, or chunked SSE) so that
// faults can cut them anywhere; Beast only parses requests.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/beast.h"

namespace sb::sim {

// A whole response: the status line with Beast's reason phrase, content-type (none when
// empty), content-length, `extra_headers` (each line ending in \r\n), "connection: close"
// unless keep_alive, then `body`.
std::string http_response(int status, std::string_view content_type, std::string_view body,
                          bool keep_alive, std::string_view extra_headers = {});

// 200 headers of a chunked SSE stream, as TGI (axum) and vLLM (uvicorn) send them.
inline constexpr std::string_view kTgiSseHeaders =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    "x-accel-buffering: no\r\ntransfer-encoding: chunked\r\n\r\n";
inline constexpr std::string_view kOpenAiSseHeaders =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    "transfer-encoding: chunked\r\n\r\n";

// One HTTP/1.1 chunk carrying `data` ("SIZE-HEX\r\nDATA\r\n"), appended to `out`.
void append_chunk(std::string& out, std::string_view data);
// The same, as a string of its own.
std::string chunk(std::string_view data);

// Sleeps `ms` milliseconds on the calling coroutine's executor.
awaitable<void> sleep_ms(int64_t ms);
// Writes every byte; false when the connection failed.
awaitable<bool> write_all(asio::ip::tcp::socket& sock, const std::string& bytes);

}  // namespace sb::sim
