#include "bench/system_info.h"

#include <mpi.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

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

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
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

}  // namespace cclab::bench
