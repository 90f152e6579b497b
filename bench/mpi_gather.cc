// The cost of a distributed run's final gather (src/mpi): every rank encodes its share of
// TOTAL synthetic request records (ITL_GAPS gaps each), sends it to rank 0, which decodes
// everything and writes the merged run folder. Run by bench/mpi_bench.sh:
//   mpirun -np 4 build-mpi/mpi_gather 1000000 32 /tmp/dir
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mpi/comm.h"
#include "mpi/rank_merge.h"
#include "mpi/record_codec.h"

namespace {

double since_s(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<sb::metrics::RequestRecord> make_records(int rank, int size, int64_t total, int gaps) {
  std::vector<sb::metrics::RequestRecord> out;
  for (int64_t id = rank; id < total; id += size) {
    sb::metrics::RequestRecord r;
    r.id = static_cast<uint64_t>(id);
    r.status = 200;
    r.t_sched_ns = id * 1000;
    r.t_send_ns = r.t_sched_ns + 50'000;
    r.t_first_ns = r.t_first_content_ns = r.t_send_ns + 20'000'000 + (id % 977) * 10'000;
    r.t_last_ns = r.t_first_ns + gaps * 5'000'000;
    r.t_end_ns = r.t_last_ns + 100'000;
    r.input_tokens = 256;
    r.output_tokens = gaps + 1;
    r.output_tokens_source = sb::metrics::TokenSource::usage;
    r.events = static_cast<uint32_t>(gaps + 1);
    r.itl_ms.assign(static_cast<size_t>(gaps), 5.0f + static_cast<float>(id % 13) * 0.1f);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  sb::mpi::Session mpi(&argc, &argv);
  const int64_t total = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
  const int gaps = argc > 2 ? std::atoi(argv[2]) : 32;
  const std::string dir = argc > 3 ? argv[3] : "/tmp/servebench-mpi-gather";
  auto records = make_records(mpi.rank(), mpi.size(), total, gaps);
  MPI_Barrier(MPI_COMM_WORLD);

  auto t0 = std::chrono::steady_clock::now();
  const std::string bytes = sb::mpi::encode_records(records);
  const double encode_s = since_s(t0);
  if (mpi.rank() != 0) {
    sb::mpi::send_bytes(bytes, 0, 300, MPI_COMM_WORLD);
    return 0;
  }
  size_t wire = bytes.size();
  std::vector<sb::mpi::RankResult> ranks(static_cast<size_t>(mpi.size()));
  ranks[0].records = std::move(records);
  ranks[0].state = "done";
  t0 = std::chrono::steady_clock::now();
  std::vector<std::string> received;
  for (int r = 1; r < mpi.size(); ++r)
    received.push_back(sb::mpi::recv_bytes(r, 300, MPI_COMM_WORLD));
  const double transfer_s = since_s(t0);
  t0 = std::chrono::steady_clock::now();
  for (int r = 1; r < mpi.size(); ++r) {
    wire += received[r - 1].size();
    ranks[r].rank = r;
    ranks[r].state = "done";
    ranks[r].records = sb::mpi::decode_records(received[r - 1]);
  }
  const double decode_s = since_s(t0);
  received.clear();
  std::filesystem::create_directories(dir);
  t0 = std::chrono::steady_clock::now();
  sb::metrics::RunInfo info;
  const auto summary = sb::mpi::write_merged_run(dir, ranks, info);
  const double merge_s = since_s(t0);
  fmt::print(
      "gather of {} records ({} ITL gaps each) from {} ranks: {:.1f} MB on the wire\n"
      "  encode (per rank, in parallel) {:.3f} s | transfer to rank 0 {:.3f} s | decode {:.3f} s\n"
      "  => gather {:.3f} s; then merged summary + requests.jsonl + summary.json {:.3f} s "
      "({} measured)\n",
      total, gaps, mpi.size(), static_cast<double>(wire) / 1e6, encode_s, transfer_s, decode_s,
      encode_s + transfer_s + decode_s, merge_s, summary.requests.total);
  std::filesystem::remove_all(dir);
  return 0;
}
