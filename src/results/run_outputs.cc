#include "results/run_outputs.h"

#include "results/summary_csv.h"
#include "results/summary_json.h"

namespace sb::results {

void write_run_outputs(const std::string& dir, const metrics::RunSummary& summary,
                       const metrics::RunInfo& info) {
  write_file_atomically(
      dir + "/summary.json",
      summary_to_json(summary, info).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n");
  write_file_atomically(dir + "/summary.csv", summary_csv_header() + summary_csv_row(summary));
}

}  // namespace sb::results
