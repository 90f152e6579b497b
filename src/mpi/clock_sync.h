#pragma once
// Offset of each rank's steady clock against rank 0's, by ping-pong (NTP-style, Cristian's
// algorithm): rank r notes t1, asks rank 0 for its clock t0, notes t2 on the reply; then
// offset = t0 - (t1 + t2) / 2 with |error| <= (t2 - t1) / 2. Of `rounds` exchanges the one
// with the shortest round trip is kept. steady_clock is per host and unrelated across hosts,
// so this offset is what puts every rank on rank 0's clock.
#include <mpi.h>

#include <cstdint>

#include "common/clock.h"

namespace sb::mpi {

struct ClockOffset {
  int64_t offset_ns = 0;       // rank 0's steady clock minus this rank's (0 on rank 0)
  int64_t uncertainty_ns = 0;  // half the best round trip (0 on rank 0)
};

// Collective over `comm` (rank 0 of `comm` is the reference).
ClockOffset estimate_clock_offset(MPI_Comm comm, int rounds = 32);

// This rank's instant `t` on rank 0's clock, in nanoseconds since its epoch, and back.
inline int64_t to_reference_ns(TimePoint t, const ClockOffset& o) {
  return t.time_since_epoch().count() + o.offset_ns;
}
inline TimePoint from_reference_ns(int64_t ns, const ClockOffset& o) {
  return TimePoint(Nanos(ns - o.offset_ns));
}

}  // namespace sb::mpi
