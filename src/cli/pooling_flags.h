#pragma once
// `prof` flags of the non-generative APIs (--api embeddings / rerank, --batch-size) -> the
// run's adapter and workload (workload/pooling_item.h; docs/workloads.md).
#include "cli/prof_options.h"

namespace sb::cli {

// With --api embeddings or rerank: whole bodies (never a stream, whatever --no-stream says)
// and workload.batch_inputs = --batch-size. Throws sb::usage_error naming the flag: a
// --batch-size below 1, or above 1 on a generative API; sessions (--session-concurrency) or
// a trace (--trace) on a pooling API (both are made of generations); rerank with an images
// dataset (--dataset-format images, an image file or a folder: rerank scores texts).
void apply_pooling_flags(const ProfFlags& flags, engine::EngineConfig& e);

}  // namespace sb::cli
