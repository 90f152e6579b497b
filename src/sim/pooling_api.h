#pragma once
// The simulator's non-generative wire formats (docs/simulator.md, "Embeddings, rerank and image
// encoders"), pure: a request body in, the response body out.
//
// POST /v1/embeddings (OpenAI, vLLM, TEI, Infinity): {"model"?, "input", "encoding_format"?}
// with input a string, an array of strings, a token-id array or an array of them, or an array
// of objects {"text": s} / {"image": URL} (Jina's multimodal form). An image is a data: URL
// "data:image/...;base64,..." whose bytes carry a PNG, JPEG, GIF or WebP signature (an http(s)
// URL is taken unseen: the simulator fetches nothing); it costs text.image_tokens tokens
// (a CLIP ViT-L/14 at 224 px: 16 x 16 patches + CLS = 257). Response: {"object": "list",
// "data": [{"object": "embedding", "index", "embedding"}], "model", "usage": {"prompt_tokens",
// "total_tokens"}}; the embedding is model.hidden_size floats (or, with "encoding_format":
// "base64", their little-endian float32 bytes in base64, as vLLM and OpenAI send them).
//
// POST /v1/rerank and /rerank (vLLM's serving_score, Jina, Cohere v1): {"model"?, "query",
// "documents": [string | {"text": s}], "top_n"?}. Each document is scored with the query as
// one sequence (a cross-encoder): query + document tokens. Response: {"id", "model", "usage":
// {"total_tokens"}, "results": [{"index", "relevance_score"}]} sorted by score, the first
// top_n (default: all).
//
// Errors are vLLM's 400 {"object": "error", "message", "type": "BadRequestError", ...}: a body
// that is not JSON, a missing or empty input / documents / query, an input of another type, an
// image that is not one, an item longer than sched.max_total_tokens (the model's context).
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/api.h"
#include "sim/config.h"

namespace sb::sim {

enum class PoolingKind { embeddings, rerank };

struct PoolingRequest {
  PoolingKind kind = PoolingKind::embeddings;
  std::string model;            // echoed (empty: the configured model)
  std::vector<int64_t> tokens;  // per item, the tokens the encoder reads; one item per entry
  int64_t images = 0;           // image items among them
  int64_t top_n = 0;            // rerank: results returned (<= items)
  bool base64 = false;          // embeddings: "encoding_format": "base64"
  uint64_t seed = 0;            // a hash of the body: selects the vectors and scores
  int64_t total_tokens() const;
};

std::variant<PoolingRequest, HttpError> parse_pooling(PoolingKind kind, std::string_view body,
                                                      const SimConfig& cfg);

// The 200 body. `id`: the rerank response's id; `dim`: floats per embedding.
std::string pooling_response(const PoolingRequest& req, std::string_view model, std::string_view id,
                             int dim);

}  // namespace sb::sim
