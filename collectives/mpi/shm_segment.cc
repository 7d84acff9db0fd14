#include "collectives/mpi/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cclab {
namespace {

// Every rank learns whether any rank failed, and rank `from`'s reason when it did.
void agree(MPI_Comm comm, const std::string& localProblem) {
  int bad = localProblem.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
  if (bad != 0) throw std::runtime_error(localProblem.empty() ? "shared memory segment: another rank failed to map it" : localProblem);
}

std::string failure(const char* call, int error) { return std::string("shared memory segment: ") + call + ": " + std::strerror(error); }

}  // namespace

ShmSegment::ShmSegment(MPI_Comm comm, std::size_t bytes) : bytes_(bytes) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::array<char, 64> name{};
  std::string problem;
  int fd = -1;
  if (rank == 0) {
    static int made = 0;  // several segments in one process get names of their own
    std::snprintf(name.data(), name.size(), "/cclab-%ld-%d", static_cast<long>(::getpid()), made++);
    fd = ::shm_open(name.data(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
      problem = failure("shm_open", errno);
    } else if (const int e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)); e != 0) {
      problem = failure("posix_fallocate (is /dev/shm full?)", e);
    }
  }
  MPI_Bcast(name.data(), static_cast<int>(name.size()), MPI_CHAR, 0, comm);
  try {
    agree(comm, problem);
    if (rank != 0) {
      fd = ::shm_open(name.data(), O_RDWR, 0600);
      if (fd < 0) problem = failure("shm_open", errno);
    }
    if (problem.empty()) {
      // Populated: the page faults happen here, not in the first messages of a run (a first
      // benchmark size paid them, 2 us a call instead of 0.4). Up to 64 MiB (22 ranks' channels);
      // larger segments fault in as they are used.
      const int populate = bytes <= (std::size_t{64} << 20) ? MAP_POPULATE : 0;
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | populate, fd, 0);
      if (p == MAP_FAILED) problem = failure("mmap", errno);
      else data_ = p;
    }
    if (fd >= 0) ::close(fd);
    fd = -1;
    agree(comm, problem);
  } catch (...) {
    if (fd >= 0) ::close(fd);
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = nullptr;
    if (rank == 0 && name[0] != '\0') ::shm_unlink(name.data());
    throw;
  }
  // Everyone has it mapped: the name can go now, so nothing is left behind.
  if (rank == 0) ::shm_unlink(name.data());
}

ShmSegment::~ShmSegment() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
}

}  // namespace cclab
