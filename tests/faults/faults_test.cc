// Faults end to end (docs/reliability.md): ccsim, ccreport and ccbench interrupted by SIGINT or
// SIGTERM mid-run leave no temporary file or chart folder and exit 128 + the signal; what a
// SIGKILL leaves is removed by the next write of the same file; a full disk and a read-only folder
// give one line naming the file and exit 2, with the previous file untouched.

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "results/results.h"

namespace cclab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

// A process neither running nor a zombie waiting to be reaped.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' && line[close + 2] != 'X';
}

bool waitFor(const std::function<bool()>& condition, std::chrono::seconds limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return condition();
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cclab_faults_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "logs");
  }
  void TearDown() override {
    if (!mount_.empty()) ::umount2(mount_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  // Starts `argv` in `dir_/out` with stdout and stderr to logs/, `env` (NAME=value) added, every
  // signal at its default. Returns its pid.
  pid_t start(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::chdir((dir_ / "out").c_str());
      const int out = ::open((dir_ / "logs" / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open((dir_ / "logs" / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(err, STDERR_FILENO);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }
  // The exit code, or minus the signal that killed it (a handler that cleans up exits 128 + signal).
  static int finish(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  int run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) { return finish(start(argv, env)); }
  std::string err() const { return slurp(dir_ / "logs" / "stderr"); }
  // Lines of stderr that start with `tool` (mpirun adds its own).
  std::vector<std::string> toolLines(const std::string& tool) const {
    std::vector<std::string> lines;
    std::istringstream in(err());
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with(tool)) lines.push_back(line);
    }
    return lines;
  }

  // Mounts a tmpfs of `size` on `dir`; false (the caller skips) when not root or mount fails.
  bool mountTmpfs(const fs::path& dir, const std::string& size) {
    if (::geteuid() != 0) return false;
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + size).c_str()) != 0) return false;
    mount_ = dir;
    return true;
  }
  // Fills the mounted tmpfs until it has no room for another byte.
  void fill(const fs::path& dir) {
    const int fd = ::open((dir / "filler").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    const std::string block(4096, 'x');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    while (::write(fd, block.data(), 1) > 0) {
    }
    EXPECT_EQ(errno, ENOSPC);
    ::close(fd);
  }

  fs::path dir_;
  fs::path mount_;
};

std::vector<std::string> longCcsimSweep(const std::string& json, const std::string& csv) {
  // 1,000,000 predictions, about 25 s: long enough to be interrupted mid-run.
  return {CCSIM, "collective", "all_reduce", "--cluster", "dgx-h100", "-b", "4", "-e", "2000000", "-f", "1", "-i", "4", "-J", json, "--csv", csv};
}

bool anyStartsWith(const fs::path& dir, const std::string& prefix) {
  for (const auto& name : entries(dir)) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

TEST_F(Faults, CcsimInterruptedLeavesNothingAndExits128PlusTheSignal) {
  for (int signal : {SIGINT, SIGTERM}) {
    const pid_t pid = start(longCcsimSweep("p.json", "p.csv"));
    // Mid-run: the rows are streaming into the temporaries.
    ASSERT_TRUE(waitFor([&] {
      for (const auto& e : fs::directory_iterator(dir_ / "out")) {
        std::error_code gone;
        if (e.path().filename().string().starts_with(".p.json.rows.tmp-") && e.file_size(gone) > 100000 && !gone) return true;
      }
      return false;
    })) << joined(entries(dir_ / "out"));
    ::kill(pid, signal);
    EXPECT_EQ(finish(pid), 128 + signal) << err();
    EXPECT_EQ(joined(entries(dir_ / "out")), "") << "left behind after signal " << signal;
  }
}

TEST_F(Faults, WhatASigkillLeavesGoesAtTheNextWriteOfTheSameFile) {
  const pid_t pid = start(longCcsimSweep("p.json", "p.csv"));
  ASSERT_TRUE(waitFor([&] { return anyStartsWith(dir_ / "out", ".p.json.rows.tmp-" + std::to_string(pid) + "-"); }));
  ::kill(pid, SIGKILL);
  EXPECT_EQ(finish(pid), -SIGKILL);
  // Nothing can run on a SIGKILL: its temporaries are there...
  EXPECT_TRUE(anyStartsWith(dir_ / "out", ".p.json.rows.tmp-" + std::to_string(pid) + "-"));
  EXPECT_TRUE(anyStartsWith(dir_ / "out", ".p.csv.tmp-" + std::to_string(pid) + "-"));
  // ...until the next run writes the same files.
  EXPECT_EQ(run({CCSIM, "collective", "all_reduce", "--cluster", "dgx-h100", "-b", "1K", "-e", "1M", "-J", "p.json", "--csv", "p.csv"}), 0)
      << err();
  EXPECT_EQ(joined(entries(dir_ / "out")), "p.csv p.json");
}

// ccreport's inputs: a baseline and a current run of one all_reduce size.
void reportInputs(const fs::path& dir) {
  for (const char* name : {"before.json", "after.json"}) {
    results::ResultsFile file;
    file.run.tool = "ccbench";
    file.run.host = "node1";
    file.run.nranks = 2;
    results::Row row;
    row.backend = "mpi";
    row.algo = "native";
    row.collective = Collective::AllReduce;
    row.op = ReduceOp::Sum;
    row.sizeBytes = 1 << 20;
    row.count = row.sizeBytes / 4;
    row.nranks = 2;
    row.iters = 1;
    results::setTime(row, 100);
    file.rows = {row};
    results::writeFileAtomically(dir / name, results::toJson(file).dump(1) + "\n");
  }
}

// A stand-in for `ccplan --render` that records its pid and its child's, then sleeps (slow), or
// writes a PNG at once (fast).
fs::path fakeCcplan(const fs::path& dir, bool slow) {
  const fs::path script = dir / (slow ? "slow-ccplan" : "fast-ccplan");
  std::ofstream(script) << "#!/bin/sh\n"
                        << "out=''; prev=''\n"
                        << "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                        << (slow ? "sleep 60 &\necho $! > '" + (dir / "sleep.pid").string() + ".tmp'\nmv '" + (dir / "sleep.pid").string() +
                                       ".tmp' '" + (dir / "sleep.pid").string() + "'\nwait\n"
                                 : "printf '\\211PNG\\r\\n\\032\\n' > \"$out\"\n");
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST_F(Faults, CcreportInterruptedWhileDrawingLeavesNoChartFolder) {
  reportInputs(dir_ / "out");
  const fs::path tmp = dir_ / "tmp";  // where ccreport makes its chart folder (TMPDIR)
  fs::create_directories(tmp);
  const fs::path slow = fakeCcplan(dir_ / "logs", true);
  for (int signal : {SIGINT, SIGTERM}) {
    fs::remove(dir_ / "logs" / "sleep.pid");
    const pid_t pid = start({CCREPORT, "compare", "--baseline", "before.json", "--current", "after.json", "--html", "r.html", "--json", "r.json",
                             "--ccplan", slow.string()},
                            {"TMPDIR=" + tmp.string()});
    ASSERT_TRUE(waitFor([&] { return fs::exists(dir_ / "logs" / "sleep.pid"); })) << err();
    ASSERT_TRUE(anyStartsWith(tmp, "ccreport-charts-"));
    pid_t sleeper = 0;
    std::ifstream(dir_ / "logs" / "sleep.pid") >> sleeper;
    ::kill(pid, signal);
    EXPECT_EQ(finish(pid), 128 + signal) << err();
    EXPECT_EQ(joined(entries(tmp)), "") << "signal " << signal;
    // r.json, written before the charts were drawn, is complete; no r.html, no temporaries.
    EXPECT_EQ(joined(entries(dir_ / "out")), "after.json before.json r.json");
    EXPECT_NO_THROW(results::Json::parse(slurp(dir_ / "out" / "r.json")));
    fs::remove(dir_ / "out" / "r.json");
    // The drawing process and what it started were ended too.
    ASSERT_GT(sleeper, 0);
    EXPECT_TRUE(waitFor([&] { return !running(sleeper); }, 5s)) << "ccplan's child still runs";
  }
}

TEST_F(Faults, CcreportRemovesItsChartFolderOnEveryExit) {
  reportInputs(dir_ / "out");
  const fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  const std::vector<std::string> env = {"TMPDIR=" + tmp.string()};
  const fs::path fast = fakeCcplan(dir_ / "logs", false);
  const std::vector<std::string> html = {CCREPORT, "compare", "--baseline", "before.json", "--current", "after.json", "--html", "r.html", "--ccplan"};
  auto with = [&](std::vector<std::string> argv, const std::string& more) {
    argv.push_back(more);
    return argv;
  };
  EXPECT_EQ(run(with(html, fast.string()), env), 0) << err();
  EXPECT_NE(slurp(dir_ / "out" / "r.html").find("data:image/png;base64,"), std::string::npos);
  EXPECT_EQ(joined(entries(tmp)), "");
  EXPECT_EQ(run(with(html, "/bin/false"), env), 0) << err();  // ccplan fails: charts left out
  EXPECT_NE(slurp(dir_ / "out" / "r.html").find("Charts were left out"), std::string::npos);
  EXPECT_EQ(joined(entries(tmp)), "");
}

// A full temporary folder: the chart data cannot be written. The report goes out without charts,
// and without the folder.
TEST_F(Faults, CcreportWithAFullTemporaryFolderLeavesTheChartsOut) {
  reportInputs(dir_ / "out");
  const fs::path tmp = dir_ / "tmp";
  if (!mountTmpfs(tmp, "64k")) GTEST_SKIP() << "needs root and tmpfs (mount) for a full temporary folder";
  fill(tmp);
  const fs::path fast = fakeCcplan(dir_ / "logs", false);
  EXPECT_EQ(run({CCREPORT, "compare", "--baseline", "before.json", "--current", "after.json", "--html", "r.html", "--ccplan", fast.string()},
                {"TMPDIR=" + tmp.string()}),
            0)
      << err();
  EXPECT_NE(slurp(dir_ / "out" / "r.html").find("Charts were left out: could not write the charts&#39; data: cannot write"), std::string::npos)
      << slurp(dir_ / "out" / "r.html");
  EXPECT_NE(slurp(dir_ / "out" / "r.html").find("No space left on device"), std::string::npos);
  EXPECT_EQ(joined(entries(tmp)), "filler");
}

// The file ccsim (and ccbench) cannot write, the previous version of it, and how they fail.
void expectCannotWrite(const std::vector<std::string>& lines, const fs::path& file, const std::string& tool, const std::string& reason) {
  ASSERT_EQ(lines.size(), 1u) << joined(lines);
  EXPECT_EQ(lines[0], tool + ": error: cannot write '" + file.string() + "': " + reason);
}

TEST_F(Faults, AFullDiskFailsWithOneLineAndLeavesThePreviousFile) {
  const fs::path full = dir_ / "full";
  if (!mountTmpfs(full, "64k")) GTEST_SKIP() << "needs root and tmpfs (mount) for a small full file system";
  std::ofstream(full / "keep.json") << "previous\n";
  fill(full);

  EXPECT_EQ(run({CCSIM, "collective", "all_reduce", "--cluster", "dgx-h100", "-b", "1K", "-e", "1G", "-J", (full / "keep.json").string()}), 2);
  expectCannotWrite(toolLines("ccsim"), full / "keep.json", "ccsim", "No space left on device");
  EXPECT_EQ(run({CCSIM, "collective", "all_reduce", "--cluster", "dgx-h100", "-b", "1K", "-e", "1G", "--csv", (full / "new.csv").string()}), 2);
  expectCannotWrite(toolLines("ccsim"), full / "new.csv", "ccsim", "No space left on device");
  EXPECT_EQ(slurp(full / "keep.json"), "previous\n");
  EXPECT_EQ(joined(entries(full)), "filler keep.json");

#ifdef CCBENCH
  // Rank 0 finds the disk full at its first row; every rank stops there.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run({MPIEXEC, "-np", "2", CCBENCH, "all_reduce", "-b", "1K", "-e", "64K", "-f", "4", "-n", "5", "-w", "0", "-N", "50", "-J",
                 (full / "keep.json").string()}),
            2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 60s);
  expectCannotWrite(toolLines("ccbench"), full / "keep.json", "ccbench", "No space left on device");
  EXPECT_EQ(slurp(full / "keep.json"), "previous\n");
  EXPECT_EQ(joined(entries(full)), "filler keep.json");
#endif
}

TEST_F(Faults, AReadOnlyFolderFailsWithOneLineAndLeavesThePreviousFile) {
  const fs::path ro = dir_ / "ro";
  std::string reason;
  if (::geteuid() == 0) {
    // Root writes through permissions: a read-only mount it is.
    if (!mountTmpfs(ro, "64k")) GTEST_SKIP() << "mount failed: cannot make a read-only file system";
    std::ofstream(ro / "keep.json") << "previous\n";
    if (::mount("tmpfs", ro.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=64k") != 0) GTEST_SKIP() << "remount read-only failed";
    reason = "Read-only file system";
  } else {
    fs::create_directories(ro);
    std::ofstream(ro / "keep.json") << "previous\n";
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    reason = "Permission denied";
  }
  EXPECT_EQ(run({CCSIM, "collective", "all_reduce", "--cluster", "dgx-h100", "-J", (ro / "keep.json").string()}), 2);
  expectCannotWrite(toolLines("ccsim"), ro / "keep.json", "ccsim", reason);
#ifdef CCBENCH
  EXPECT_EQ(run({MPIEXEC, "-np", "2", CCBENCH, "all_reduce", "-b", "1K", "-e", "1K", "-J", (ro / "keep.json").string()}), 2);
  expectCannotWrite(toolLines("ccbench"), ro / "keep.json", "ccbench", reason);
#endif
  EXPECT_EQ(slurp(ro / "keep.json"), "previous\n");
  EXPECT_EQ(joined(entries(ro)), "keep.json");
  if (::geteuid() != 0) fs::permissions(ro, fs::perms::owner_all);
}

}  // namespace
}  // namespace cclab
