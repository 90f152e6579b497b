#include "workload/pooling_item.h"

#include <algorithm>

namespace sb::workload {

WorkItem pooling_item(const PromptSource& prompts, PoolingKind kind, int64_t batch_inputs,
                      uint64_t id) {
  const auto n = static_cast<uint64_t>(std::max<int64_t>(1, batch_inputs));
  const bool rerank = kind == PoolingKind::rerank;
  const uint64_t first = id * (rerank ? n + 1 : n);
  WorkItem out;
  out.inputs.reserve(n);
  if (rerank) {
    WorkItem query = prompts.item(first);
    out.prompt = std::move(query.prompt);
    out.request_class = std::move(query.request_class);
    out.input_tokens = 0;
    const int64_t query_tokens = query.input_tokens;
    for (uint64_t k = 0; k < n; ++k) {
      WorkItem doc = prompts.item(first + 1 + k);
      out.input_tokens += query_tokens + doc.input_tokens;
      out.inputs.push_back(std::move(doc.prompt));
    }
    return out;
  }
  std::vector<WorkItem> items;
  items.reserve(n);
  for (uint64_t k = 0; k < n; ++k) items.push_back(prompts.item(first + k));
  out.request_class = items.front().request_class;
  out.image_inputs = std::all_of(items.begin(), items.end(),
                                 [](const WorkItem& w) { return !w.image_url.empty(); });
  for (WorkItem& w : items) {
    if (out.image_inputs) {
      out.inputs.push_back(std::move(w.image_url));
    } else {
      out.input_tokens += w.input_tokens;
      out.inputs.push_back(std::move(w.prompt));
    }
  }
  return out;
}

}  // namespace sb::workload
