#pragma once

// A POSIX shared memory segment that every rank of a communicator maps (they must share a host):
// the first rank creates it (shm_open, space reserved with posix_fallocate so a full /dev/shm
// fails here and not as a SIGBUS later) and sends its name over MPI; the others open and map it;
// once all have it mapped it is unlinked, so nothing is left in /dev/shm whatever happens to the
// ranks afterwards. The memory is zeroed (a new object's pages are).

#include <mpi.h>

#include <cstddef>

namespace cclab {

class ShmSegment {
 public:
  // Collective over `comm`. Throws std::runtime_error on every rank when any rank fails, naming
  // the call and the reason.
  ShmSegment(MPI_Comm comm, std::size_t bytes);
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace cclab
