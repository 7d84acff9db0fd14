// Faults in writing results: temporaries a SIGKILL left are removed by the next write of the same
// target (only those of writers no longer alive), SIGINT/SIGTERM remove what is registered, and a
// results file streamed row by row is the same, byte for byte, as one written at once.

#include "results/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "results/interrupts.h"
#include "results/results.h"
#include "results/results_writer.h"
#include "collectives/errors.h"

namespace cclab::results {
namespace {

namespace fs = std::filesystem;

class Scratch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cclab_atomic_file_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void touch(const fs::path& path, const std::string& text = "partial") { std::ofstream(path) << text; }

// A pid that no process has: a child's, after it has exited and been reaped.
pid_t deadPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// `target`'s temporary name as process `pid` of this host writes it (this process's name, with
// the pid replaced).
fs::path temporaryOf(const fs::path& target, pid_t pid, std::string_view stage = "") {
  std::string name = temporaryPath(target, stage).filename().string();
  const std::string own = "tmp-" + std::to_string(::getpid()) + "-";
  name.replace(name.find(own), own.size(), "tmp-" + std::to_string(pid) + "-");
  return target.parent_path() / name;
}

TEST_F(Scratch, TemporaryNamesSayWhoseTheyAre) {
  const std::string name = temporaryPath(dir_ / "r.json").filename().string();
  EXPECT_TRUE(name.starts_with(".r.json.tmp-" + std::to_string(::getpid()) + "-")) << name;
  EXPECT_TRUE(temporaryPath(dir_ / "r.json", "rows").filename().string().starts_with(".r.json.rows.tmp-" + std::to_string(::getpid()) + "-"));
}

TEST_F(Scratch, AWriteRemovesTheTemporariesOfDeadWritersOnly) {
  const fs::path target = dir_ / "r.json";
  const pid_t dead = deadPid();
  const fs::path stale = temporaryOf(target, dead);
  const fs::path staleRows = temporaryOf(target, dead, "rows");
  const fs::path staleOldName = dir_ / (".r.json.tmp-" + std::to_string(dead));  // as written before names carried the host
  const fs::path live = temporaryOf(target, ::getppid());                        // the test's parent: alive
  const fs::path otherHost = dir_ / (".r.json.tmp-" + std::to_string(dead) + "-some-other-host");  // cannot tell: kept
  const fs::path otherTarget = temporaryOf(dir_ / "other.json", dead);           // another target's: not this write's business
  for (const fs::path& p : {stale, staleRows, staleOldName, live, otherHost, otherTarget}) touch(p);

  writeFileAtomically(target, "{}\n");
  EXPECT_EQ(slurp(target), "{}\n");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(staleRows));
  EXPECT_FALSE(fs::exists(staleOldName));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(otherHost));
  EXPECT_TRUE(fs::exists(otherTarget));

  // checkWritable (what the tools call before a long run) cleans up the same way.
  touch(stale);
  checkWritable(target);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_EQ(removeStaleTemporaries(dir_ / "other.json"), 1);
  EXPECT_FALSE(fs::exists(otherTarget));
}

TEST_F(Scratch, AFailedWriteLeavesTheTargetAsItWas) {
  const fs::path target = dir_ / "r.json";
  touch(target, "previous\n");
  {
    TemporaryFile file(target);
    file.write("half of a new file");
    // Destroyed without commit (an exception on the way): the temporary goes, the target stays.
  }
  EXPECT_EQ(slurp(target), "previous\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  try {
    writeFileAtomically(dir_ / "missing-folder" / "r.json", "x");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write '" + (dir_ / "missing-folder" / "r.json").string() + "': No such file or directory");
  }
}

// A pipe (or a device: /dev/stdout, /dev/null) is written in place, not replaced by a file; a
// target reached through a link is replaced where the link points, and the link stays.
TEST_F(Scratch, PipesAreWrittenInPlaceAndLinksAreKept) {
  const fs::path pipe = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const int reader = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open does not wait
  ASSERT_GE(reader, 0);
  checkWritable(pipe);
  writeFileAtomically(pipe, "through the pipe\n");
  char bytes[64];
  const ssize_t n = ::read(reader, bytes, sizeof(bytes));
  ::close(reader);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(bytes, static_cast<std::size_t>(n)), "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(pipe));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary left beside it

  const fs::path real = dir_ / "real.json", link = dir_ / "link.json";
  touch(real, "previous\n");
  fs::create_symlink(real.filename(), link);
  writeFileAtomically(link, "new\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(real), "new\n");
}

// In a child process: registers a file, a folder tree and a child process group, installs the
// handlers, raises `signal`. The parent sees the exit status and what is left.
TEST_F(Scratch, InterruptsRemoveWhatIsRegisteredAndExitWith128PlusTheSignal) {
  for (int signal : {SIGINT, SIGTERM}) {
    const fs::path file = dir_ / "partial.tmp", tree = dir_ / "charts", kept = dir_ / "kept";
    touch(file);
    fs::create_directories(tree / "0" / "deeper");
    for (int i = 0; i < 200; ++i) touch(tree / "0" / ("series-" + std::to_string(i) + ".json"));  // more than one listing block
    touch(tree / "0" / "deeper" / "chart.png");
    touch(tree / "stderr.txt");
    touch(kept);
    const fs::path grandchildPid = dir_ / "grandchild.pid";
    const pid_t child = ::fork();
    if (child == 0) {
      // The registrations live until the signal: the handler never returns.
      installInterruptHandlers();
      RemoveOnInterrupt a(file, RemoveOnInterrupt::Kind::File);
      RemoveOnInterrupt b(tree, RemoveOnInterrupt::Kind::Tree);
      const pid_t sleeper = ::fork();
      if (sleeper == 0) {
        ::setpgid(0, 0);
        ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
        ::_exit(127);
      }
      ::setpgid(sleeper, sleeper);
      RemoveOnInterrupt c(sleeper);
      std::ofstream(grandchildPid) << sleeper;
      ::raise(signal);
      ::_exit(99);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(fs::exists(tree));
    EXPECT_TRUE(fs::exists(kept));
    // The registered child was killed and reaped before the paths went.
    pid_t sleeper = 0;
    std::ifstream(grandchildPid) >> sleeper;
    ASSERT_GT(sleeper, 0);
    EXPECT_NE(::kill(sleeper, 0), 0) << "the registered child process still runs";
    fs::remove(kept);
  }
}

TEST_F(Scratch, AnIgnoredSignalStaysIgnored) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGINT, SIG_IGN);  // as a background job of a non-interactive shell starts
    installInterruptHandlers();
    ::raise(SIGINT);
    ::_exit(7);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST_F(Scratch, ATemporaryFolderGoesOnEveryWayOut) {
  fs::path where;
  try {
    TemporaryFolder folder("cclab-atomic-file-test-");
    where = folder.path();
    EXPECT_TRUE(fs::is_directory(where));
    touch(where / "x");
    throw InputError("on the way out");
  } catch (const InputError&) {
  }
  EXPECT_FALSE(where.empty());
  EXPECT_FALSE(fs::exists(where));
}

// Rows of every shape: with and without per-iteration times, nulls, no op, numbers that need all
// their digits.
std::vector<Row> rowsOfEveryShape() {
  std::vector<Row> rows;
  Row a;
  a.backend = "mpi";
  a.algo = "native";
  a.collective = Collective::AllReduce;
  a.dtype = DataType::Float;
  a.op = ReduceOp::Sum;
  a.sizeBytes = 1024;
  a.count = 256;
  a.nranks = 2;
  a.iters = 3;
  a.repeat = 1;
  setTime(a, 12.345678901234567);
  a.timeUsMin = 0.1;
  a.timeUsMax = 9.87654321e12;  // an exponent, within the readers' 1e13 us
  a.timeUsP50 = 12.0;
  a.timeUsP99 = 1.0 / 3.0;
  a.wrong = 0;
  a.iterTimesUs = {11.0, 12.000000000000002, std::numeric_limits<double>::denorm_min()};
  rows.push_back(a);
  Row b = a;
  b.backend = "cclab";
  b.algo = "chain \"quoted\" \\ ünïcode";
  b.collective = Collective::Broadcast;
  b.op.reset();
  b.root = 1;
  b.inPlace = true;
  b.wrong.reset();
  b.timeUsMin.reset();
  b.iterTimesUs.clear();
  rows.push_back(b);
  Row c = a;
  c.iterTimesUs = {5.5};
  c.wrong = 123456789012345;
  rows.push_back(c);
  return rows;
}

RunInfo runOfEveryShape() {
  RunInfo run = startRun("ccbench", "0.1.0", "abc-dirty", {"ccbench", "all", "-J", "r.json"});
  run.endTime = utcNow();
  run.host = "node1";
  run.cpuModel = "AMD EPYC";
  run.cpuCores = 2;
  run.memoryBytes = 1ull << 40;
  run.ranks = {{0, "node1", 10, 0, -1, "AMD EPYC", ""}, {1, "node2", 11, 1, 3, "H100", "0000:1b:00.0"}};
  run.nranks = 2;
  run.nodes = 2;
  run.config = {{"iters", 20}, {"backends", {"mpi", "cclab"}}, {"nested", {{"b", 1}, {"a", nullptr}}}};
  return run;
}

TEST_F(Scratch, StreamedFilesAreTheSameBytesAsFilesWrittenAtOnce) {
  const RunInfo run = runOfEveryShape();
  const std::vector<Row> all = rowsOfEveryShape();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, all.size()}) {
    const std::vector<Row> rows(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    const fs::path json = dir_ / "r.json", csv = dir_ / "r.csv";
    fs::remove(json);
    fs::remove(csv);
    {
      ResultsWriter writer(json, csv);
      for (const Row& row : rows) writer.add(row);
      EXPECT_FALSE(fs::exists(json));  // nothing over the targets until the end
      EXPECT_FALSE(fs::exists(csv));
      writer.finish(run);
    }
    EXPECT_EQ(slurp(json), toJson(ResultsFile{run, rows}).dump(1) + "\n") << n << " rows";
    EXPECT_EQ(slurp(csv), toCsv(rows)) << n << " rows";
    EXPECT_EQ(readResults(json).file.rows.size(), n);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2) << "a temporary file was left";
  }
}

TEST_F(Scratch, AnUnfinishedWriterLeavesNothing) {
  const fs::path json = dir_ / "r.json";
  touch(json, "previous\n");
  {
    ResultsWriter writer(json, dir_ / "r.csv");
    for (const Row& row : rowsOfEveryShape()) writer.add(row);
  }
  EXPECT_EQ(slurp(json), "previous\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace cclab::results
