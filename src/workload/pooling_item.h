#pragma once
// The work item of one embeddings or rerank request (docs/workloads.md, "Embeddings, rerank
// and image encoders"), built from the prompt source's ordinary items so that datasets,
// scenarios and seeds work unchanged.
//
// With n = WorkloadConfig::batch_inputs, request `id` takes the items of a block of its own:
//   embeddings: items id*n .. id*n + n-1; inputs = their image URLs when every one has an image
//               (an images dataset: image_inputs), else their prompt texts; input_tokens = the
//               sum of their counts (0 for images: the server's usage reports them);
//   rerank:     items id*(n+1) .. id*(n+1) + n; the first one's prompt is the query, the other
//               n prompts are the documents; input_tokens = n x query + the documents' counts,
//               as a cross-encoder reads one (query, document) pair per document.
// Blocks of different requests are disjoint, and the same id always gets the same block.
// request_class is the first item's. Never throws beyond PromptSource::item.
#include <cstdint>

#include "workload/prompt_source.h"

namespace sb::workload {

enum class PoolingKind { embeddings, rerank };

// rerank sends texts only: an item's image is not sent (the CLI refuses an images dataset).
WorkItem pooling_item(const PromptSource& prompts, PoolingKind kind, int64_t batch_inputs,
                      uint64_t id);

}  // namespace sb::workload
