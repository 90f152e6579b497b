#pragma once
// Thin, typed wrappers over the few MPI calls a distributed run needs (the only files that
// include <mpi.h> are in src/mpi/). All calls are made from the main thread
// (MPI_THREAD_FUNNELED): the engine's worker threads never touch MPI.
#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace sb::mpi {

// MPI_Init_thread in the constructor, MPI_Finalize in the destructor.
class Session {
 public:
  Session(int* argc, char*** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  [[noreturn]] void abort(int code);  // MPI_Abort(MPI_COMM_WORLD): ends every rank

 private:
  int rank_ = 0, size_ = 1;
};

// `s` of rank `root`, on every rank of `comm`.
std::string bcast_string(std::string s, int root, MPI_Comm comm);
// Every rank's `mine`, in rank order, on `root` (empty elsewhere). For small strings.
std::vector<std::string> gather_strings(const std::string& mine, int root, MPI_Comm comm);
// Point-to-point byte buffers of any size: a u64 length with `tag`, then chunks of at most
// 256 MiB with tag + 1 (MPI counts are int).
void send_bytes(std::string_view bytes, int dest, int tag, MPI_Comm comm);
std::string recv_bytes(int source, int tag, MPI_Comm comm);

}  // namespace sb::mpi
