#pragma once

// Facts about the machine a rank runs on, for the header lines and the results file.

#include <cstdint>
#include <string>

namespace cclab::bench {

struct LocalInfo {
  std::string host;
  int pid = 0;
  int core = -1;  // the core this process is on now
  std::string cpuModel;
  int cpuCores = 0;
  std::uint64_t memoryBytes = 0;
  std::uint64_t availableMemoryBytes = 0;
  std::string os;
};

LocalInfo localInfo();
std::string mpiLibraryVersion();  // first line of MPI_Get_library_version
std::string utcNow();              // ISO 8601
// Whether the user sees our stderr on a terminal: ours, or under a launcher, the launcher's.
bool stderrIsTerminal();

}  // namespace cclab::bench
