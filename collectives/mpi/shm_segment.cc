#include "collectives/mpi/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

// Reads a byte of every page, up to 64 MiB (22 ranks' channels; larger segments fault in as they
// are used), so each process's page faults happen here, not in the first messages of a run. A
// run's first 64 messages through a channel (one per slot) took ~21 us each instead of 0.4 on a VM
// whose faults cost ~6 us, and 2 us each on an earlier host; MAP_POPULATE did not prevent it. A
// read leaves the contents alone, whoever else is writing them.
void* touchPages(void* data, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const volatile char* bytesOf = static_cast<const volatile char*>(data);
  for (std::size_t at = 0; at < std::min(bytes, std::size_t{64} << 20); at += page) (void)bytesOf[at];
  return data;
}

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
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) problem = failure("mmap", errno);
      else data_ = touchPages(p, bytes);
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
