#include "results/json_reader.h"
#include "report/charts.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "results/atomic_file.h"
#include "collectives/errors.h"

extern char** environ;

namespace cclab::report {
namespace fs = std::filesystem;
namespace {

// One point per key: the mean time, bandwidths from it through the results library.
results::Row pointOf(const Group& group) {
  results::Row row = group.front()->row;
  row.timeUs = meanTimeUs(group);
  row.algbwGBps = results::algorithmBandwidthGBps(row.sizeBytes, row.timeUs);
  row.busbwGBps = results::busBandwidthGBps(row.collective, row.nranks, row.sizeBytes, row.timeUs);
  row.iterTimesUs.clear();
  return row;
}

// Runs `argv` with stderr to `errPath`, killing it after `timeout`. Returns the exit status, or
// -1 when it could not start, was killed or timed out. The child leads a process group of its own,
// registered so that SIGINT/SIGTERM end it (and all it started) before the chart folder goes.
int runProcess(const std::vector<std::string>& argv, const fs::path& errPath, std::chrono::seconds timeout) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  sigset_t interrupts, previous, none;
  sigemptyset(&interrupts);
  sigaddset(&interrupts, SIGINT);
  sigaddset(&interrupts, SIGTERM);
  sigemptyset(&none);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  pid_t pid = 0;
  std::optional<results::RemoveOnInterrupt> child;
  pthread_sigmask(SIG_BLOCK, &interrupts, &previous);  // no signal between the spawn and the registration
  const int spawned = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  if (spawned == 0) child.emplace(pid);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string firstLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool executable(const fs::path& path) { return !path.empty() && fs::is_regular_file(path) && access(path.c_str(), X_OK) == 0; }

}  // namespace

std::vector<Chart> chartsOf(const std::vector<std::pair<std::string, SideGroups>>& sides) {
  std::vector<Chart> charts;
  for (Collective collective : allCollectives()) {
    auto ofCollective = [&](const LoadedRow* r) { return r->row.collective == collective; };
    bool any = false, outOfPlace = false;
    for (const auto& [side, groups] : sides) {
      for (const auto& [key, group] : groups) {
        if (!ofCollective(group.front())) continue;
        any = true;
        outOfPlace = outOfPlace || !group.front()->row.inPlace;
      }
    }
    if (!any) continue;
    Chart chart;
    chart.collective = collective;
    chart.title = fmt::format("{}: bus bandwidth vs message size ({} rows)", name(collective), outOfPlace ? "out-of-place" : "in-place");
    for (const auto& [side, groups] : sides) {
      // Series of this side: by what ran and on how many ranks.
      std::map<std::string, std::vector<results::Row>> series;
      for (const auto& [key, group] : groups) {
        const results::Row& r = group.front()->row;
        if (!ofCollective(group.front()) || r.inPlace == outOfPlace) continue;
        series[fmt::format("{}-{}-{}r", r.backend, r.algo, r.nranks)].push_back(pointOf(group));
      }
      for (auto& [label, rows] : series) {
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.sizeBytes < b.sizeBytes; });
        chart.series.emplace_back(series.size() == 1 ? side : side + "-" + label, std::move(rows));
      }
    }
    charts.push_back(std::move(chart));
  }
  return charts;
}

std::string findCcplan(const std::string& flag) {
  if (!flag.empty()) {
    // A path the user named must be there (a bare name is looked up on PATH when it runs).
    if (flag.find('/') != std::string::npos && !executable(flag)) {
      throw InputError(fmt::format("--ccplan {}: not an executable file", flag));
    }
    return flag;
  }
  if (const char* env = std::getenv("CCLAB_CCPLAN"); env != nullptr && *env != '\0') return env;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  // The tools share one bin/ folder, in the build tree and installed alike.
  if (!error && executable(self.parent_path() / "ccplan")) return (self.parent_path() / "ccplan").string();
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && executable(fs::path(dir) / "ccplan")) return (fs::path(dir) / "ccplan").string();
    }
  }
  return "";
}

RenderedCharts renderCharts(const std::vector<Chart>& charts, const std::string& ccplan) {
  RenderedCharts out;
  if (ccplan.empty()) {
    out.leftOut = "ccplan was not found (it is built with the GUI; or give --ccplan PATH or set CCLAB_CCPLAN)";
    return out;
  }
  if (charts.empty()) {
    out.leftOut = "no rows to chart";
    return out;
  }
  // Removed on every way out, exceptions (a full disk) and SIGINT/SIGTERM included.
  std::optional<results::TemporaryFolder> scratch;
  try {
    scratch.emplace("ccreport-charts-");
  } catch (const InputError& e) {
    out.leftOut = fmt::format("could not create a temporary folder for the charts: {}", e.what());
    return out;
  }
  const fs::path& dir = scratch->path();
  constexpr std::chrono::seconds kTimeout{120};  // a chart takes well under a second; never hang CI
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const Chart& chart = charts[i];
    const fs::path chartDir = dir / std::to_string(i);
    std::error_code made;
    if (!fs::create_directory(chartDir, made) && made) {
      out.leftOut = fmt::format("could not create '{}': {}", chartDir.string(), made.message());
      out.charts.clear();
      return out;
    }
    std::vector<std::string> argv = {ccplan, "--render"};
    for (const auto& [label, rows] : chart.series) {
      results::ResultsFile file;
      file.run.tool = "ccreport";
      file.run.nranks = rows.front().nranks;
      file.rows = rows;
      const fs::path path = chartDir / (label + ".json");
      try {
        results::writeFileAtomically(path, results::dumpJson(results::toJson(file), 1) + "\n");
      } catch (const InputError& e) {  // a full temporary folder: the report goes out without charts
        out.leftOut = fmt::format("could not write the charts' data: {}", e.what());
        out.charts.clear();
        return out;
      }
      argv.push_back(path.string());
    }
    const fs::path png = chartDir / "chart.png";
    argv.insert(argv.end(), {"-o", png.string(), "--collective", std::string(name(chart.collective)), "--metric", "busbw", "--title", chart.title});
    const int status = runProcess(argv, chartDir / "stderr.txt", kTimeout);
    std::ifstream in(png, std::ios::binary);
    if (status != 0 || !in) {
      const std::string why = firstLine(chartDir / "stderr.txt");
      out.leftOut = fmt::format("'{} --render' failed ({}){}", ccplan, status < 0 ? "did not run to the end" : fmt::format("exit {}", status),
                                why.empty() ? "" : ": " + why);
      out.charts.clear();
      break;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    out.charts.push_back({chart.title, bytes.str()});
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    // Three bytes make four 6-bit letters; '=' pads the last group.
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

}  // namespace cclab::report
