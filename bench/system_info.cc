#include "bench/system_info.h"

#include <mpi.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab::bench {
namespace {

// The value after "key:" in a /proc file, or "".
std::string procField(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

std::uint64_t meminfoBytes(const std::string& key) {
  const std::string value = procField("/proc/meminfo", key);  // "24576000 kB"
  return value.empty() ? 0 : std::stoull(value) * 1024;
}

}  // namespace

LocalInfo localInfo() {
  LocalInfo info;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  info.host = host;
  info.pid = static_cast<int>(::getpid());
  info.core = ::sched_getcpu();
  info.cpuModel = procField("/proc/cpuinfo", "model name");
  if (info.cpuModel.empty()) info.cpuModel = "unknown CPU";
  info.cpuCores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string family = procField("/proc/cpuinfo", "cpu family");
  if (!family.empty() && family.find_first_not_of("0123456789") == std::string::npos && family.size() < 6) {
    info.cpuFamily = std::stoi(family);
  }
  info.memoryBytes = meminfoBytes("MemTotal");
  info.availableMemoryBytes = meminfoBytes("MemAvailable");
  struct utsname uts {};
  if (::uname(&uts) == 0) info.os = fmt::format("{} {} {}", uts.sysname, uts.release, uts.machine);
  return info;
}

std::string mpiLibraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const auto end = version.find_first_of(",\n");
  return version.substr(0, end);
}

results::RankPlacement cpuPlacement(const LocalInfo& info, int rank) {
  results::RankPlacement p;
  p.rank = rank;
  p.host = info.host;
  p.pid = info.pid;
  p.core = info.core;
  p.deviceName = info.cpuModel;
  return p;
}

std::vector<results::RankPlacement> gatherPlacement(const std::vector<results::RankPlacement>& mine) {
  // Each local rank describes itself in a fixed-size record; process 0 collects them.
  constexpr int kRecord = 512;
  int process = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  const int perProcess = static_cast<int>(mine.size());
  std::vector<char> records(static_cast<std::size_t>(kRecord * perProcess), '\0');
  for (int i = 0; i < perProcess; ++i) {
    const auto& p = mine[static_cast<std::size_t>(i)];
    fmt::format_to_n(&records[static_cast<std::size_t>(i * kRecord)], kRecord - 1, "{}\t{}\t{}\t{}\t{}\t{}", p.host, p.pid, p.core,
                     p.device, p.busId, p.deviceName);
  }
  std::vector<char> all(static_cast<std::size_t>(kRecord * perProcess * processes));
  MPI_Gather(records.data(), kRecord * perProcess, MPI_CHAR, all.data(), kRecord * perProcess, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<results::RankPlacement> placement;
  if (process != 0) return placement;
  for (int r = 0; r < perProcess * processes; ++r) {
    std::string record(&all[static_cast<std::size_t>(r * kRecord)]);
    std::vector<std::string> fields;
    for (std::size_t start = 0;;) {
      const std::size_t tab = record.find('\t', start);
      fields.push_back(record.substr(start, tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    fields.resize(6);
    results::RankPlacement p;
    p.rank = r;
    p.host = fields[0];
    p.pid = std::atoi(fields[1].c_str());
    p.core = std::atoi(fields[2].c_str());
    p.device = std::atoi(fields[3].c_str());
    p.busId = fields[4];
    p.deviceName = fields[5];
    placement.push_back(p);
  }
  return placement;
}

bool stderrIsTerminal() {
  if (::isatty(STDERR_FILENO) == 1) return true;
  // Under mpirun a rank's stderr is a pipe to the launcher, which prints it on its own stderr:
  // what the user sees is the launcher's (our parent's) stderr.
  char target[256] = {};
  const std::string link = fmt::format("/proc/{}/fd/2", ::getppid());
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return false;
  const std::string_view path(target, static_cast<std::size_t>(n));
  return path.starts_with("/dev/pts/") || path.starts_with("/dev/tty");
}

HostPosition hostPosition() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::string identity(name);
  identity = identity.substr(0, identity.find('.'));
  std::ifstream bootId("/proc/sys/kernel/random/boot_id");
  std::string boot;
  std::getline(bootId, boot);
  identity += boot;
  std::uint64_t hash = 5381;  // djb2a
  for (unsigned char ch : identity) hash = (hash * 33) ^ ch;
  int process = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(processes));
  MPI_Allgather(&hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  HostPosition p{0, 0};
  for (int r = 0; r < processes; ++r) {
    if (hashes[static_cast<std::size_t>(r)] != hash) continue;
    if (r < process) ++p.index;
    ++p.processes;
  }
  return p;
}

int ranksPerHost() {
  const HostPosition here = hostPosition();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Equal hosts, ranks numbered host by host: every host's count is the same and every rank's
  // place on its host is its rank modulo that count.
  int fewest = here.processes, most = here.processes, inBlocks = rank % here.processes == here.index ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &inBlocks, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return fewest == most && inBlocks == 1 ? here.processes : 0;
}

void agreeOrThrow(const std::string& localProblem, const std::string& summary) {
  int bad = localProblem.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) throw InputError(localProblem.empty() ? summary : localProblem);
}

}  // namespace cclab::bench
