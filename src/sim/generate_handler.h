#pragma once
// One generation request on the simulator (/generate, /generate_stream, /v1/completions,
// /v1/chat/completions, /completion, /v1/responses, /v1/messages), from the request to its
// TraceRecord: the x-sim-fault header and
// the body are validated, the fault dice rolled, the request submitted to the Engine,
// and the response written token by token as the Engine's events arrive.
#include <atomic>
#include <cstdint>
#include <functional>

#include "common/beast.h"
#include "sim/api.h"
#include "sim/config.h"
#include "sim/trace.h"

namespace sb::sim {

class Engine;
class FaultDice;

// What the generate handlers share with their server; owned by the server and outliving
// every handler.
struct GenerateContext {
  const SimConfig& cfg;
  Engine& engine;
  FaultDice* dice;                           // null or empty: no drawn faults
  std::atomic<uint64_t>& seq;                // the last request's TraceRecord::seq
  std::function<void(TraceRecord&)> finish;  // records a finished request (metrics, trace)
};

// Serves one generation request of kind `api` on `sock` and calls ctx.finish with its
// record (also when it fails). True when the connection may serve the next request: the
// client asked for keep-alive and every byte was written.
awaitable<bool> serve_generate(const GenerateContext& ctx, asio::ip::tcp::socket& sock,
                               const http::request<http::string_body>& req, ApiKind api);

}  // namespace sb::sim
