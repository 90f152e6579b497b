#include "mpi/comm.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::mpi {
namespace {

constexpr size_t kChunk = size_t{256} << 20;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(fmt::format("MPI: {} failed (code {})", what, rc));
}

}  // namespace

Session::Session(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() {
  MPI_Finalize();
}

void Session::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // not reached
}

std::string bcast_string(std::string s, int root, MPI_Comm comm) {
  uint64_t n = s.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm), "MPI_Bcast");
  s.resize(n);
  for (size_t off = 0; off < n; off += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - off));
    check(MPI_Bcast(s.data() + off, len, MPI_CHAR, root, comm), "MPI_Bcast");
  }
  return s;
}

std::vector<std::string> gather_strings(const std::string& mine, int root, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(rank == root ? size : 0), displs;
  check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm), "MPI_Gather");
  std::string all;
  if (rank == root) {
    int total = 0;
    for (int s : sizes) {
      displs.push_back(total);
      total += s;
    }
    all.resize(static_cast<size_t>(total));
  }
  check(MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), displs.data(), MPI_CHAR,
                    root, comm),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank == root)
    for (int r = 0; r < size; ++r) out.push_back(all.substr(displs[r], sizes[r]));
  return out;
}

void send_bytes(std::string_view bytes, int dest, int tag, MPI_Comm comm) {
  uint64_t n = bytes.size();
  check(MPI_Send(&n, 1, MPI_UINT64_T, dest, tag, comm), "MPI_Send");
  for (size_t off = 0; off < n; off += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - off));
    check(MPI_Send(bytes.data() + off, len, MPI_CHAR, dest, tag + 1, comm), "MPI_Send");
  }
}

std::string recv_bytes(int source, int tag, MPI_Comm comm) {
  uint64_t n = 0;
  check(MPI_Recv(&n, 1, MPI_UINT64_T, source, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  std::string out(n, '\0');
  for (size_t off = 0; off < n; off += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - off));
    check(MPI_Recv(out.data() + off, len, MPI_CHAR, source, tag + 1, comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
  }
  return out;
}

}  // namespace sb::mpi
