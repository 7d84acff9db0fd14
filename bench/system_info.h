#pragma once

// Facts about the machine a rank runs on, for the header lines and the results file.

#include <cstdint>
#include <string>
#include <vector>

#include "results/results.h"

namespace cclab::bench {

struct LocalInfo {
  std::string host;
  int pid = 0;
  int core = -1;  // the core this process is on now
  std::string cpuModel;
  int cpuCores = 0;
  int cpuFamily = 0;  // /proc/cpuinfo's "cpu family" (x86); 0 where there is none
  std::uint64_t memoryBytes = 0;
  std::uint64_t availableMemoryBytes = 0;
  std::string os;
};

LocalInfo localInfo();
std::string mpiLibraryVersion();  // first line of MPI_Get_library_version

// This process as one rank on the CPU: host, pid, core and CPU model (GPU backends describe their
// GPUs instead).
results::RankPlacement cpuPlacement(const LocalInfo& info, int rank);
// Collective over MPI_COMM_WORLD: every process's placements, in rank order, on process 0 (empty
// elsewhere). Each process passes the same number.
std::vector<results::RankPlacement> gatherPlacement(const std::vector<results::RankPlacement>& mine);
// Where this process sits on its host, as nccl-tests finds it: processes with the same host name
// and boot id are numbered in MPI rank order. Collective over MPI_COMM_WORLD.
struct HostPosition {
  int index = 0;      // among the processes on this host
  int processes = 1;  // on this host
};
HostPosition hostPosition();
// Ranks per node for cclab's hierarchical algorithms: the processes on each host when every host
// has as many and ranks are numbered host by host (mpirun's default), else 0 (one node). Collective.
int ranksPerHost();

// Throws the same InputError on every process when any process has a problem (a GPU it cannot
// use, memory that does not fit), so they all stop instead of some waiting for the others.
// Collective over MPI_COMM_WORLD; `localProblem` empty where this process has none.
void agreeOrThrow(const std::string& localProblem, const std::string& summary);

// Whether the user sees our stderr on a terminal: ours, or under a launcher, the launcher's.
bool stderrIsTerminal();

}  // namespace cclab::bench
