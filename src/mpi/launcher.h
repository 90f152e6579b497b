#pragma once
// Whether this process was started by an MPI launcher (mpirun/mpiexec, Slurm srun with PMI/PMIx,
// the Kubernetes MPI Operator's mpirun): then `servebench prof`, `sweep` and `run` run every
// measured run as one rank of a distributed benchmark (src/mpi/executor.h). Reads the
// environment only; no MPI call.
#include <cstdlib>

namespace sb::mpi {

inline bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

}  // namespace sb::mpi
