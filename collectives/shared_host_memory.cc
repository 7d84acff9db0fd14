#include "collectives/shared_host_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>

namespace cclab {

namespace {

// A hypervisor that shadows the guest's page tables (the PVM guests of docs/auto-vs-mpi.md,
// "Off the caches") traps a process's first read of each page even where MAP_POPULATE filled the
// guest's tables: about 2 ms a 2 MiB copy on the Zen 5 VM, 7x the copy. One read a page here pays
// that once, when the mapping is made, not inside the first timed loop that reaches the page.
void touchEveryPage(const char* base, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  volatile char sink = 0;
  for (std::size_t at = 0; at < bytes; at += page) sink = static_cast<char>(sink + base[at]);
}

struct Allocation {
  char* base;
  std::size_t bytes;
  int fd;
  std::uint64_t region;
};

// This process's shared allocations: threads of one process (the tests' ranks) allocate and send at once.
struct Registry {
  std::mutex mutex;
  std::vector<Allocation> allocations;
  std::uint64_t nextRegion = 1;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void* allocateSharedHost(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const int fd = memfd_create("cclab-buffer", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return nullptr;
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    close(fd);
    return nullptr;
  }
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.allocations.push_back(Allocation{static_cast<char*>(base), bytes, fd, r.nextRegion++});
  return base;
}

bool releaseSharedHost(void* ptr) {
  Registry& r = registry();
  Allocation found{};
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = std::find_if(r.allocations.begin(), r.allocations.end(), [&](const Allocation& a) { return a.base == ptr; });
    if (it == r.allocations.end()) return false;
    found = *it;
    r.allocations.erase(it);
  }
  munmap(found.base, found.bytes);
  close(found.fd);  // a reader's mapping keeps the memory until it unmaps it
  return true;
}

std::optional<SharedHostSpan> findSharedHost(const void* ptr, std::size_t bytes) {
  const auto* p = static_cast<const char*>(ptr);
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const Allocation& a : r.allocations) {
    if (p >= a.base && p <= a.base + a.bytes && bytes <= static_cast<std::size_t>(a.base + a.bytes - p)) {
      return SharedHostSpan{a.fd, a.region, static_cast<std::uint64_t>(p - a.base)};
    }
  }
  return std::nullopt;
}

namespace {
// The span's bytes in a mapping of `length` bytes at `base`, or nullptr where they run past its end.
const char* spanIn(char* base, std::size_t length, const SharedHostSpan& span, std::size_t bytes) {
  return span.offset <= length && bytes <= length - span.offset ? base + span.offset : nullptr;
}
}  // namespace

PeerMappings::~PeerMappings() {
  for (const Mapping& m : mappings_) munmap(m.base, m.length);
}

const char* PeerMappings::map(pid_t pid, const SharedHostSpan& span, std::size_t bytes) {
  for (const Mapping& m : mappings_) {
    if (m.pid == pid && m.region == span.region) return spanIn(m.base, m.length, span, bytes);
  }
  if (span.fd < 0 || std::find(refused_.begin(), refused_.end(), pid) != refused_.end()) return nullptr;
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(span.fd);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    refused_.push_back(pid);  // another user, ptrace restrictions, no /proc: not worth asking again
    return nullptr;
  }
  struct stat st {};
  void* base = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    // MAP_POPULATE: the page tables now, not page by page inside the first timed copy.
    base = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  }
  close(fd);
  if (base == MAP_FAILED) return nullptr;
  touchEveryPage(static_cast<const char*>(base), static_cast<std::size_t>(st.st_size));
  if (mappings_.size() == kKept) {
    munmap(mappings_.front().base, mappings_.front().length);
    mappings_.erase(mappings_.begin());
  }
  mappings_.push_back(Mapping{pid, span.region, static_cast<char*>(base), static_cast<std::size_t>(st.st_size)});
  return spanIn(mappings_.back().base, mappings_.back().length, span, bytes);
}

}  // namespace cclab
