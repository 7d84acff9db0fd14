#pragma once

// Host buffers the other processes of the host can map, and the mappings of theirs. A large
// message between processes is otherwise read with process_vm_readv (cross-memory attach, what
// Open MPI's vader uses), which pins the sender's pages a few at a time: on the Intel Xeon VM of
// docs/auto-vs-mpi.md it copies 64 MiB at about half memcpy's rate. A buffer that lives in a
// memfd instead can be mapped by its readers once and then copied with memcpy, as NCCL's
// ncclMemAlloc gives buffers its peers map and XPMEM lets Open MPI map a peer's buffer.
//
// HostDevice allocates its large buffers here (ccbench's, so both backends of a run get the same
// memory); a buffer from anywhere else still travels, by process_vm_readv. A reader opens the
// owner's memfd through /proc/<pid>/fd/<fd>, which needs the same permission as process_vm_readv.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cclab {

// Where a span of bytes lies in a shared allocation of its process.
struct SharedHostSpan {
  std::int32_t fd = -1;      // the allocation's memfd, in the owner's process
  std::uint64_t region = 0;  // the allocation, unique in its process (fd numbers are reused)
  std::uint64_t offset = 0;  // of the span's first byte from the allocation's start
};

// Smaller allocations are not worth a file descriptor: their messages go through the slots.
inline constexpr std::size_t kSharedHostMinBytes = 64 * 1024;

// A page-aligned buffer of `bytes` in a memfd of its own; nullptr where the host refuses (no
// memfd, out of file descriptors, out of memory): then allocate another way.
void* allocateSharedHost(std::size_t bytes);
// Frees an allocateSharedHost buffer and returns true; false for any other pointer.
bool releaseSharedHost(void* ptr);
// The span [ptr, ptr + bytes) if it lies inside one shared allocation of this process.
std::optional<SharedHostSpan> findSharedHost(const void* ptr, std::size_t bytes);

// Other processes' shared allocations mapped read-only into this one. Each is mapped on first use
// and kept (the next call of a benchmark's loop reads the same buffer); the oldest of more than
// kKept is unmapped. One per transport: its peers' pids do not change while it lives.
class PeerMappings {
 public:
  static constexpr std::size_t kKept = 16;

  PeerMappings() = default;
  PeerMappings(const PeerMappings&) = delete;
  PeerMappings& operator=(const PeerMappings&) = delete;
  ~PeerMappings();

  // The address in this process of the span's `bytes`, or nullptr where process `pid` cannot be
  // mapped (its /proc entry refused, the span past the allocation's end): read another way.
  const char* map(pid_t pid, const SharedHostSpan& span, std::size_t bytes);

 private:
  struct Mapping {
    pid_t pid;
    std::uint64_t region;
    char* base;
    std::size_t length;
  };
  std::vector<Mapping> mappings_;  // oldest first
  std::vector<pid_t> refused_;
};

}  // namespace cclab
