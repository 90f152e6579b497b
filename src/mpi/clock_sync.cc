#include "mpi/clock_sync.h"

#include <limits>

namespace sb::mpi {
namespace {
constexpr int kTagPing = 101, kTagPong = 102;
int64_t now_ns() {
  return Clock::now().time_since_epoch().count();
}
}  // namespace

ClockOffset estimate_clock_offset(MPI_Comm comm, int rounds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ClockOffset out;
  if (rank == 0) {
    for (int r = 1; r < size; ++r)
      for (int k = 0; k < rounds; ++k) {
        char ping = 0;
        MPI_Recv(&ping, 1, MPI_CHAR, r, kTagPing, comm, MPI_STATUS_IGNORE);
        const int64_t t0 = now_ns();
        MPI_Send(&t0, 1, MPI_INT64_T, r, kTagPong, comm);
      }
    return out;
  }
  int64_t best_rtt = std::numeric_limits<int64_t>::max();
  for (int k = 0; k < rounds; ++k) {
    const char ping = 0;
    int64_t t0 = 0;
    const int64_t t1 = now_ns();
    MPI_Send(&ping, 1, MPI_CHAR, 0, kTagPing, comm);
    MPI_Recv(&t0, 1, MPI_INT64_T, 0, kTagPong, comm, MPI_STATUS_IGNORE);
    const int64_t t2 = now_ns();
    if (t2 - t1 < best_rtt) {
      best_rtt = t2 - t1;
      out.offset_ns = t0 - (t1 + (t2 - t1) / 2);
      out.uncertainty_ns = (t2 - t1 + 1) / 2;
    }
  }
  return out;
}

}  // namespace sb::mpi
