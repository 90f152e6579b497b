#include "cli/pooling_flags.h"

#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"
#include "workload/image_data.h"

namespace sb::cli {

void apply_pooling_flags(const ProfFlags& f, engine::EngineConfig& e) {
  const protocol::Api api = e.adapter.api;
  if (f.batch_size < 1)
    throw usage_error(fmt::format("--batch-size {}: inputs per request, at least 1", f.batch_size));
  if (!protocol::is_pooling(api)) {
    if (f.batch_size != 1)
      throw usage_error(fmt::format(
          "--batch-size sends several inputs in one request: only with --api embeddings or "
          "rerank (--api {} sends one prompt a request)",
          protocol::to_string(api)));
    return;
  }
  const std::string name(protocol::to_string(api));
  if (!f.session_concurrency.empty() || !f.trace.empty())
    throw usage_error(fmt::format(
        "--api {} with {}: sessions and traces are made of generations; use --concurrency or "
        "--request-rate",
        name, f.trace.empty() ? "--session-concurrency" : "--trace"));
  std::error_code ec;
  const bool images = f.dataset_format == "images" ||
                      (!f.dataset.empty() && (std::filesystem::is_directory(f.dataset, ec) ||
                                              workload::image_mime_type(f.dataset)));
  if (api == protocol::Api::rerank && images)
    throw usage_error(fmt::format(
        "--api rerank scores text documents against a text query; --dataset '{}' holds images "
        "(use --api embeddings for an image encoder)",
        f.dataset));
  e.adapter.stream = false;
  e.workload.batch_inputs = f.batch_size;
}

}  // namespace sb::cli
