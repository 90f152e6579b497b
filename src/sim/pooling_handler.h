#pragma once
// One embeddings or rerank request on the simulator (POST /v1/embeddings, /v1/rerank, /rerank;
// sim/pooling_api.h), from the request to its TraceRecord: the body is validated, its items
// become encoder passes in the Engine (SchedRequest::encode_only): one per item under
// continuous batching (the engine batches them with everything in flight, as TEI and vLLM do),
// one for the whole batch otherwise (a wrapper's single forward); the whole body is written
// once every pass has ended. Only the x-sim-fault header's `status` fault applies.
#include "common/beast.h"
#include "sim/generate_handler.h"
#include "sim/pooling_api.h"

namespace sb::sim {

// Items one request may carry (the engine ids of its items keep 20 bits for the item).
inline constexpr size_t kMaxPoolingItems = size_t{1} << 20;

// Serves one pooling request on `sock` and calls ctx.finish with its record (prompt_tokens =
// every item's tokens, first_token_ns = the reply's write, no output tokens). True when the
// connection may serve the next request.
awaitable<bool> serve_pooling(const GenerateContext& ctx, asio::ip::tcp::socket& sock,
                              const http::request<http::string_body>& req, PoolingKind kind);

}  // namespace sb::sim
