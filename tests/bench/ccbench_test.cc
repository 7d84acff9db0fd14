// ccbench end to end, under mpirun: its text output reads as nccl-tests output, its JSON and CSV
// say the same as its text, and bad input, wrong results and hangs end with the documented exit
// codes (2, 1, 3) and one clear line.

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "collectives/algorithms/algorithms.h"
#include "collectives/shm_transport.h"
#include "bench/tuner.h"
#include "results/text_format.h"
#include "tests/command.h"
#include "results/results.h"

namespace cclab {
namespace {

namespace fs = std::filesystem;

using testing::Outcome;
using testing::runCommand;

class Ccbench : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ccbench_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `ccbench <args>` on `ranks` ranks (0: without mpirun, a singleton).
  Outcome ccbench(int ranks, const std::string& args) {
    const std::string launcher = ranks > 0 ? std::string(MPIEXEC) + " -np " + std::to_string(ranks) + " " : "";
    return runCommand(launcher + CCBENCH + " " + args, dir_);
  }
  fs::path dir_;
};

// The lines of `text` that are result rows (not comments).
std::vector<std::string> rowLines(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  return rows;
}

TEST_F(Ccbench, OutputParsesAsNcclTestsAndAgreesWithJsonAndCsv) {
  const std::string json = (dir_ / "r.json").string(), csv = (dir_ / "r.csv").string();
  const Outcome run = ccbench(3, "all --backend mpi,cclab -b 1K -e 64K -f 4 -n 3 -w 1 -J " + json + " --csv " + csv);
  ASSERT_EQ(run.exitCode, 0) << run.err;

  // 1. A parser written for nccl-tests reads it: every collective, both backends.
  const results::Import text = results::importNcclTestsText(run.out, "stdout");
  EXPECT_EQ(text.file.run.tool, "ccbench");
  EXPECT_EQ(text.file.run.nranks, 3);
  EXPECT_EQ(text.file.run.ranks.at(2).rank, 2);
  EXPECT_GE(text.file.run.ranks.at(0).core, 0);
  const std::size_t sizes = 3;                     // 1K, 4K, 16K, 64K -> 4 sizes
  const std::size_t rowsPerBackend = 2 * (sizes + 1) * 9;  // out/in place x sizes x collectives
  ASSERT_EQ(text.file.rows.size(), 2 * rowsPerBackend);

  // 2. busbw = algbw x the collective's factor on every row, to the precision printed: half a
  // unit of the last digit of each (2 decimals below 1000, then 1, then none).
  auto halfUnit = [](double v) { return v < 1000 ? 0.005 : v < 10000 ? 0.05 : 0.5; };
  for (const results::Row& row : text.file.rows) {
    const double factor = busBandwidthFactor(row.collective, 3);
    const double expected = row.algbwGBps * factor;
    EXPECT_NEAR(row.busbwGBps, expected, halfUnit(row.algbwGBps) * factor + halfUnit(row.busbwGBps) + 1e-9)
        << name(row.collective) << " " << row.sizeBytes;
    EXPECT_EQ(row.wrong, 0);
  }

  // 3. The JSON holds the same rows: printed with the same formatter, they give the same lines.
  const results::Import fromJson = results::readResults(json);
  ASSERT_EQ(fromJson.file.rows.size(), text.file.rows.size());
  const std::vector<std::string> lines = rowLines(run.out);
  ASSERT_EQ(lines.size() * 2, fromJson.file.rows.size());
  for (const results::Row& row : fromJson.file.rows) {
    // At full precision (the text prints 0.00 GB/s for a 1 KiB row slower than 200 us, which an
    // oversubscribed machine under load can be).
    EXPECT_EQ(row.algbwGBps > 0, row.sizeBytes > 0) << name(row.collective) << " " << row.sizeBytes;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(results::resultLine(fromJson.file.rows[2 * i], fromJson.file.rows[2 * i + 1]), lines[i]);
    EXPECT_EQ(fromJson.file.rows[2 * i].backend, text.file.rows[2 * i].backend);
    EXPECT_EQ(fromJson.file.rows[2 * i].algo, text.file.rows[2 * i].algo);
  }
  const results::RunInfo& info = fromJson.file.run;
  EXPECT_EQ(info.tool, "ccbench");
  EXPECT_EQ(info.nranks, 3);
  EXPECT_EQ(info.ranks.size(), 3u);
  EXPECT_NE(info.mpiVersion.find("MPI"), std::string::npos);
  EXPECT_FALSE(info.cpuModel.empty());
  EXPECT_GT(info.cpuCores, 0);
  EXPECT_EQ(info.command.at(1), "all");
  EXPECT_EQ(info.config.at("iters"), 3);
  EXPECT_EQ(results::emulatedRanksPerNode(info), 0);  // nodes are hosts: nothing emulated
  for (const results::Row& row : fromJson.file.rows) {
    EXPECT_EQ(row.iters, 3);
    EXPECT_EQ(row.iterTimesUs.size(), 3u);
    EXPECT_LE(*row.timeUsMin, *row.timeUsP50);
    EXPECT_LE(*row.timeUsP50, *row.timeUsMax);
    // The row's time is the mean of its iterations' (the loop's elapsed time also held the
    // harness's own work between them, which put sub-microsecond rows above their slowest).
    EXPECT_NEAR(row.timeUs, (row.iterTimesUs[0] + row.iterTimesUs[1] + row.iterTimesUs[2]) / 3, 1e-9 * row.timeUs);
    EXPECT_LE(*row.timeUsMin, row.timeUs * (1 + 1e-12));
    EXPECT_LE(row.timeUs, *row.timeUsMax * (1 + 1e-12));
  }

  // The rows were streamed to the file as they were measured; the file is still what the results
  // library writes for these rows and this run information, byte for byte.
  EXPECT_EQ(testing::slurp(json), results::toJson(fromJson.file).dump(1) + "\n");

  // 4. The CSV holds the same rows as the JSON.
  const results::Import fromCsv = results::readResults(csv);
  ASSERT_EQ(fromCsv.file.rows.size(), fromJson.file.rows.size());
  for (std::size_t i = 0; i < fromCsv.file.rows.size(); ++i) {
    const results::Row& a = fromCsv.file.rows[i];
    const results::Row& b = fromJson.file.rows[i];
    EXPECT_EQ(a.backend, b.backend);
    EXPECT_EQ(a.collective, b.collective);
    EXPECT_EQ(a.sizeBytes, b.sizeBytes);
    EXPECT_EQ(a.inPlace, b.inPlace);
    EXPECT_DOUBLE_EQ(a.timeUs, b.timeUs);
    EXPECT_DOUBLE_EQ(a.busbwGBps, b.busbwGBps);
  }
}

// -N repeats the sweep: every pass is a row of its own in the file, and the side-by-side table has
// one line per size with each backend's mean algbw over the passes.
TEST_F(Ccbench, RepeatsAreRowsAndTheSideBySideTableAveragesThem) {
  const std::string json = (dir_ / "r.json").string(), csv = (dir_ / "r.csv").string();
  const Outcome run = ccbench(2, "all_reduce --backend mpi,cclab -b 1K -e 16K -f 4 -n 2 -w 0 -N 3 -J " + json + " --csv " + csv);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Import file = results::readResults(json);
  ASSERT_EQ(file.file.rows.size(), 2u * 3 * 3 * 2);  // backends x repeats x sizes x out/in place
  EXPECT_EQ(testing::slurp(json), results::toJson(file.file).dump(1) + "\n");
  EXPECT_EQ(testing::slurp(csv), results::toCsv(file.file.rows));
  std::map<std::pair<std::string, std::uint64_t>, std::vector<double>> algbw;  // (backend, size) -> out-of-place algbw per pass
  for (const results::Row& row : file.file.rows) {
    if (!row.inPlace) algbw[{row.backend, row.sizeBytes}].push_back(row.algbwGBps);
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  std::vector<std::string> table;
  std::istringstream lines(run.out.substr(run.out.find("# Side by side")));
  for (std::string line; std::getline(lines, line) && line != "#";) table.push_back(line);
  ASSERT_EQ(table.size(), 2u + 3) << run.out;  // title, header, one line per size
  EXPECT_NE(table[0].find("mean of the repeats"), std::string::npos) << table[0];
  for (std::size_t i = 2; i < table.size(); ++i) {
    std::istringstream cells(table[i].substr(1));
    std::uint64_t size = 0;
    std::string type, op, root;
    double mpi = 0, cclab = 0, ratio = 0;
    cells >> size >> type >> op >> root >> mpi >> cclab >> ratio;
    const std::vector<double>& mpiPasses = algbw[std::pair<std::string, std::uint64_t>("mpi", size)];
    const std::vector<double>& cclabPasses = algbw[std::pair<std::string, std::uint64_t>("cclab", size)];
    ASSERT_EQ(mpiPasses.size(), 3u) << table[i];
    ASSERT_EQ(cclabPasses.size(), 3u) << table[i];
    EXPECT_NEAR(mpi, mean(mpiPasses), 0.0005 + 1e-9) << table[i];
    EXPECT_NEAR(cclab, mean(cclabPasses), 0.0005 + 1e-9) << table[i];
    EXPECT_NEAR(ratio, mean(cclabPasses) / mean(mpiPasses), 0.0005 + 1e-3 * ratio) << table[i];
  }
}

// --min_time: a loop of -n collectives shorter than it runs more iterations, every rank the same
// count, and each row says how many.
TEST_F(Ccbench, MinTimeLengthensShortLoopsAndEachRowSaysHowMany) {
  const std::string json = (dir_ / "r.json").string();
  // -w 1: the loop is sized from one cold collective, which overestimates the steady state's time.
  const Outcome run = ccbench(2, "all_reduce --backend cclab -b 8 -e 8 -n 5 -w 1 --min_time 0.02 -J " + json);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Import file = results::readResults(json);
  EXPECT_EQ(file.file.run.config.at("min_time_s"), 0.02);
  ASSERT_EQ(file.file.rows.size(), 2u);
  for (const results::Row& row : file.file.rows) {
    EXPECT_GT(row.iters, 5) << "an 8-byte all_reduce of 2 ranks takes far less than 4 ms";
    // The loop ran at least 7/8 of the 20 ms on the slowest rank (a shorter loop is measured again).
    // The row's time is the iterations' own, without the harness's work between them (the clock
    // reads, the watchdog: 0.4 us an iteration on the Zen 5 VM, beside a 1.4 us all_reduce), so
    // their sum is a part of the loop: at least half of it here.
    EXPECT_GT(row.iters * row.timeUs * 1e-6, 0.010) << row.iters << " iterations of " << row.timeUs << " us";
    if (row.iters <= 1000) EXPECT_EQ(row.iterTimesUs.size(), static_cast<std::size_t>(row.iters));
    else EXPECT_TRUE(row.iterTimesUs.empty());  // a long loop keeps its percentiles only
    ASSERT_TRUE(row.timeUsP50.has_value());
    EXPECT_LE(*row.timeUsMin, *row.timeUsP50);
    EXPECT_LE(*row.timeUsP50, *row.timeUsMax);
  }
}

TEST_F(Ccbench, RunsWithoutALauncherAsOneRank) {
  const Outcome run = ccbench(0, "all_reduce -b 8 -e 1K -f 8");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Import text = results::importNcclTestsText(run.out, "stdout");
  EXPECT_EQ(text.file.run.nranks, 1);
  EXPECT_EQ(text.file.rows.size(), 6u);  // 8, 64 and 512 bytes, out of place and in place
}

TEST_F(Ccbench, BadInputExitsTwoWithOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"allreduce", "unknown collective 'allreduce'"},
      {"all_reduce -d float17", "unknown datatype 'float17'"},
      {"all_reduce -o mean", "unknown reduction op 'mean'"},
      {"all_gather -o prod", "meaningless for all_gather"},
      {"all_reduce -b 1M -e 1K", "-b 1 MiB is larger than -e 1 KiB"},
      {"broadcast -r 2", "-r 2 is not a rank"},
      {"all_reduce -b 2000G -e 2000G --backend cclab", "does not fit in memory"},
      {"all_reduce -b 2000G -e 2000G", "exceed the MPI library's count limit"},
      {"all_reduce -b 1 -e 2000G -i 1", "is more than 1000000 sizes"},
      {"all_reduce -e 99999999999999G", "is too large"},
      {"all_reduce -b 12X", "unknown unit"},
      {"all_reduce -n 0", "-n must be at least 1"},
      {"all_reduce --frobnicate", "--frobnicate"},
      {"all_reduce -J /nonexistent-dir/r.json", "cannot write '/nonexistent-dir/r.json'"},
      {"all_reduce --backend cclab --algo bruck", "no cclab algorithm 'bruck' for all_reduce"},
      {"broadcast --backend cclab --algo rd,rhd", "no cclab algorithm 'rd,rhd' for broadcast"},
      {"all_reduce --backend cclab --algo auto,ring", "'auto' picks every algorithm itself"},
      {"all_reduce --backend cclab --cluster dgx-h100", "--cluster: only --algo auto"},
      {"all_reduce --backend cclab --algo auto --cluster no-such-cluster", "unknown cluster preset 'no-such-cluster'"},
      {"all_reduce --backend cclab --transport ib", "unknown transport 'ib'"},
      {"all_reduce --transport shm", "--transport shm: it carries cclab's algorithms on the CPU"},
      {"all_reduce --backend cclab --transport mpi --shm-single-copy 1K", "--shm-single-copy: only with --transport shm or auto"},
      {"all_reduce --backend cclab --transport shm --shm-single-copy lots", "--shm-single-copy 'lots' is not a size"},
      {"all_reduce --backend mpi --host-copy-piece 0", "--host-copy-piece: it sets cclab's copies on the CPU"},
      {"all_reduce --backend cclab --host-copy-piece big", "--host-copy-piece 'big' is not a size"},
      {"all_reduce --backend mpi --host-buffers private", "--host-buffers: it sets cclab's buffers on the CPU"},
      {"all_reduce --backend cclab --host-buffers pinned", "--host-buffers must be shared or private (got 'pinned')"},
      {"all_reduce --off-cache lots", "--off-cache 'lots' is not a size"},
      {"all_reduce --backend cclab -e 1G --off-cache 4000G", "with --off-cache 3.9 TiB does not fit in memory"},
      {"", "missing the collective"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome run = ccbench(2, args);
    EXPECT_EQ(run.exitCode, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find("ccbench: error: " ), std::string::npos) << args << "\n" << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << args << "\n" << run.err;
    // One line from ccbench (mpirun adds its own note about the exit code after it).
    int ccbenchLines = 0;
    std::istringstream lines(run.err);
    for (std::string line; std::getline(lines, line);) ccbenchLines += line.starts_with("ccbench") ? 1 : 0;
    EXPECT_EQ(ccbenchLines, 1) << args << "\n" << run.err;
    EXPECT_EQ(rowLines(run.out).size(), 0u) << args;
  }
}

// --algo auto: every row names the registry algorithm that ran it (the simulator's pick for that
// size), the text says which sizes got which, and the results are exact.
TEST_F(Ccbench, AutoNamesTheAlgorithmEachSizeRan) {
  const std::string json = (dir_ / "auto.json").string();
  const Outcome run = ccbench(3, "all_reduce,all_gather,alltoall,broadcast --backend cclab --algo auto -b 8 -e 4M -f 8 -n 2 -w 0 -c 1 -J " + json);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  // On one host the default transport is shared memory: auto tunes on that transport's calibration
  // (this machine's, or the closest preset's: CI's 2-core VMs are AMD EPYC or Intel Xeon).
  const std::size_t tuned = run.out.find("algorithm: auto  (cclab --algo auto (tuned on models/calibrations/cpu-2core-");
  ASSERT_NE(tuned, std::string::npos) << run.out;
  EXPECT_NE(run.out.find("-shm.json (calibrated for ", tuned), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("# auto picked (out-of-place/in-place): "), std::string::npos) << run.out;
  EXPECT_EQ(results::importNcclTestsText(run.out, "stdout").file.rows.size(), 4u * 2 * 7);  // 8 B to 2 MiB; the picks line is a comment
  const results::Import file = results::readResults(json);
  ASSERT_EQ(file.file.rows.size(), 4u * 2 * 7);
  for (const results::Row& row : file.file.rows) {
    EXPECT_EQ(row.wrong, 0);
    bool known = false;
    for (const Algorithm& a : allAlgorithms()) known |= a.collective == row.collective && a.name == row.algo;
    EXPECT_TRUE(known) << name(row.collective) << " " << row.sizeBytes << ": '" << row.algo << "'";
    // The picks line names it beside the size.
    EXPECT_NE(run.out.find(row.algo), std::string::npos);
  }
}

// Without descriptions to read (no models folder) a run that asked for none still runs, every
// message through the slots; --algo auto, which needs one, says so and exits 2.
TEST_F(Ccbench, WithoutTheModelsFolderEveryMessageGoesThroughTheSlots) {
  const std::string json = (dir_ / "slots.json").string();
  ::setenv("CCLAB_MODELS", (dir_ / "no-models").c_str(), 1);
  const Outcome plain = ccbench(2, "all_reduce --backend cclab -b 1M -e 1M -n 1 -w 0 -J " + json);
  const Outcome automatic = ccbench(2, "all_reduce --backend cclab --algo auto -b 1M -e 1M -n 1 -w 0");
  ::unsetenv("CCLAB_MODELS");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::AllReduce), 0);
  EXPECT_EQ(automatic.exitCode, 2);
  EXPECT_NE(automatic.err.find("no cluster preset to tune on"), std::string::npos) << automatic.err;
}

// Nodes emulated on one host (--ranks-per-node) are recorded, so that ccsim calibrate and
// validate price the hierarchical algorithm on the groups it ran on; so is the transport cclab
// ran over (the default on one host: shared memory, two copies a message through the slots, one
// from the single-copy threshold this machine's description measured up; over MPI: one), which
// prices one-way transfers.
// The run's buffers shared (the default: the single copies read the peer's mapping, and reduce
// out of it) or private (--host-buffers private: process_vm_readv): exact either way, beside the MPI library on the same
// buffers, and the header and the results say which.
TEST_F(Ccbench, SharedAndPrivateBuffersAreExactAndRecorded) {
  const std::string json = (dir_ / "buffers.json").string();
  for (const char* buffers : {"", "private"}) {
    for (const char* collective : {"alltoall", "all_reduce --algo rhd", "broadcast --algo tree"}) {
      const std::string flag = *buffers == '\0' ? "" : std::string(" --host-buffers ") + buffers;
      const Outcome run = ccbench(3, std::string(collective) + " --backend mpi,cclab --shm-single-copy 16K -b 1M -e 1M -n 1 -w 0 -c 1" +
                                         flag + " -J " + json);
      ASSERT_EQ(run.exitCode, 0) << collective << flag << ": " << run.err;
      const std::string expected = *buffers == 'p' ? "private" : "shared";
      EXPECT_NE(run.out.find(", " + expected + " buffers)"), std::string::npos) << run.out;
      const results::Import file = results::readResults(json);
      EXPECT_EQ(file.file.run.config.at(results::kHostBuffersKey), expected) << collective;
      EXPECT_EQ(results::cclabSharedHostBuffers(file.file.run), expected == "shared") << collective;
      ASSERT_FALSE(file.file.rows.empty());
      for (const results::Row& row : file.file.rows) EXPECT_EQ(row.wrong, 0) << collective << flag << " " << row.backend;
    }
  }
}

// --off-cache: both backends move through buffers that much larger, exact as ever; the results say
// how much (auto: twice the last cache level of this machine's description).
TEST_F(Ccbench, OffCacheIsExactAndRecorded) {
  const std::string json = (dir_ / "off-cache.json").string();
  const Outcome sized = ccbench(3, "all_reduce,broadcast,alltoall,gather --backend mpi,cclab --off-cache 1M -b 8 -e 256K -f 16 -n 3 -w 1 -c 1 -J " + json);
  ASSERT_EQ(sized.exitCode, 0) << sized.err;
  const results::Import file = results::readResults(json);
  EXPECT_EQ(file.file.run.config.at("off_cache_bytes"), 1 << 20);
  EXPECT_NE(sized.out.find("# Off cache: the calls of a size move through 1 MiB more than the largest message\n"), std::string::npos) << sized.out;
  ASSERT_EQ(file.file.rows.size(), 4u * 2 * 2 * 4);  // 4 collectives, 2 backends, in and out of place, 4 sizes
  for (const results::Row& row : file.file.rows) EXPECT_EQ(row.wrong, 0) << name(row.collective) << " " << row.backend;
  const Outcome automatic = ccbench(2, "all_reduce --backend cclab --off-cache auto -b 1K -e 1K -n 2 -w 0 -J " + json);
  const results::RunInfo& machine = file.file.run;
  const bench::LastCache cache = bench::describedLastCache("", {machine.cpuModel, machine.cpuCores, machine.cpuFamily});
  if (cache.bytes > 0) {  // the 2-core VMs CI runs on are described with their caches
    ASSERT_EQ(automatic.exitCode, 0) << automatic.err;
    EXPECT_EQ(results::readResults(json).file.run.config.at("off_cache_bytes"), 2 * cache.bytes);
  } else {
    EXPECT_EQ(automatic.exitCode, 2);
    EXPECT_NE(automatic.err.find("--off-cache auto: no description of this machine gives its cache sizes"), std::string::npos) << automatic.err;
  }
  const Outcome plain = ccbench(2, "all_reduce --backend cclab -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_EQ(results::readResults(json).file.run.config.at("off_cache_bytes"), 0);
}

TEST_F(Ccbench, RecordsTheEmulatedNodesAndTheTransportOfARun) {
  const std::string json = (dir_ / "hier.json").string();
  const Outcome run = ccbench(4, "all_reduce --backend cclab --algo hier --ranks-per-node 2 -b 1K -e 4K -f 4 -n 2 -w 0 -c 1 -J " + json);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Import file = results::readResults(json);
  EXPECT_EQ(results::emulatedRanksPerNode(file.file.run), 2);
  EXPECT_EQ(file.file.run.config.at(results::kTransportKey), "shm");
  const bench::SingleCopy described = bench::describedSingleCopy("", {file.file.run.cpuModel, file.file.run.cpuCores, file.file.run.cpuFamily});
  EXPECT_EQ(file.file.run.config.at(results::kShmSingleCopyKey), described.bytes);
  EXPECT_EQ(results::cclabCopiesPerMessage(file.file.run), 2);
  EXPECT_EQ(results::cclabSingleCopyBytes(file.file.run, Collective::AllReduce), static_cast<double>(described.bytes));
  EXPECT_EQ(file.file.run.config.at(results::kShmSingleCopyRootedKey), described.rootedBytes);
  EXPECT_EQ(results::cclabSingleCopyBytes(file.file.run, Collective::Broadcast), static_cast<double>(described.rootedBytes));
  const Outcome slots = ccbench(2, "all_reduce --backend cclab --shm-single-copy 0 -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(slots.exitCode, 0) << slots.err;
  EXPECT_EQ(results::readResults(json).file.run.config.at(results::kShmSingleCopyKey), 0);
  EXPECT_EQ(results::cclabCopiesPerMessage(results::readResults(json).file.run), 2);
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::AllReduce), 0);
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::Reduce), 0);  // the flag sets both
  EXPECT_TRUE(results::cclabWaitingRanksYield(file.file.run));
  EXPECT_EQ(file.file.run.config.at(results::kShmPackedKey), ShmTransport::kPackedMaxBytes);
  EXPECT_EQ(results::cclabPackedBytes(file.file.run), static_cast<double>(ShmTransport::kPackedMaxBytes));
  // Runs from before ccbench recorded it: packed from the day the transport began to, not before.
  results::RunInfo unrecorded = file.file.run;
  unrecorded.config.erase(results::kShmPackedKey);
  unrecorded.startTime = "2026-12-04T11:57:37Z";
  EXPECT_EQ(results::cclabPackedBytes(unrecorded), 0);
  unrecorded.startTime = "2026-12-05T09:13:48Z";
  EXPECT_EQ(results::cclabPackedBytes(unrecorded), 24);
  unrecorded.startTime.clear();
  EXPECT_EQ(results::cclabPackedBytes(unrecorded), -1);
  ASSERT_FALSE(file.file.rows.empty());
  for (const results::Row& row : file.file.rows) EXPECT_EQ(row.wrong, 0);
  const Outcome singleCopy = ccbench(2, "all_reduce --backend cclab --shm-single-copy 1K -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(singleCopy.exitCode, 0) << singleCopy.err;
  EXPECT_EQ(results::cclabCopiesPerMessage(results::readResults(json).file.run), 2);
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::AllReduce), 1024);
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::Gather), 1024);
  const Outcome rooted = ccbench(2, "broadcast --backend cclab --shm-single-copy 1K --shm-single-copy-rooted 2M -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(rooted.exitCode, 0) << rooted.err;
  EXPECT_NE(rooted.out.find("one copy from 1 KiB (rooted calls from 2 MiB)"), std::string::npos) << rooted.out;
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::AllReduce), 1024);
  EXPECT_EQ(results::cclabSingleCopyBytes(results::readResults(json).file.run, Collective::Broadcast), 2 * 1024 * 1024);
  // The pieces of its own host copies: the description's where not given, the flag's where given.
  EXPECT_EQ(file.file.run.config.at(results::kHostCopyPieceKey),
            bench::describedCopyPiece("", {file.file.run.cpuModel, file.file.run.cpuCores, file.file.run.cpuFamily}).bytes);
  for (const auto& [flag, bytes, header] : {std::tuple{"0", 0, "host copies in one memcpy"}, std::tuple{"3K", 3072, "host copies in 3 KiB pieces"}}) {
    const Outcome pieces = ccbench(2, std::string("all_gather --backend cclab --host-copy-piece ") + flag + " -b 1M -e 1M -n 1 -w 0 -J " + json);
    ASSERT_EQ(pieces.exitCode, 0) << pieces.err;
    EXPECT_NE(pieces.out.find(header), std::string::npos) << pieces.out;
    const results::Import piecesFile = results::readResults(json);
    EXPECT_EQ(piecesFile.file.run.config.at(results::kHostCopyPieceKey), bytes) << flag;
    EXPECT_EQ(results::cclabHostCopyPieceBytes(piecesFile.file.run), bytes) << flag;
    ASSERT_FALSE(piecesFile.file.rows.empty());
    for (const results::Row& row : piecesFile.file.rows) EXPECT_EQ(row.wrong, 0) << flag;
  }
  const Outcome overMpi = ccbench(2, "all_reduce --backend cclab --transport mpi -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(overMpi.exitCode, 0) << overMpi.err;
  const results::RunInfo mpiRun = results::readResults(json).file.run;
  EXPECT_EQ(mpiRun.config.at(results::kTransportKey), "mpi");
  EXPECT_FALSE(mpiRun.config.contains(results::kShmSingleCopyKey));
  EXPECT_EQ(results::cclabCopiesPerMessage(mpiRun), 1);
  EXPECT_EQ(results::cclabSingleCopyBytes(mpiRun, Collective::AllReduce), 0);
  EXPECT_FALSE(results::cclabWaitingRanksYield(mpiRun));
  EXPECT_EQ(results::cclabPackedBytes(mpiRun), 0);
  const Outcome libraryOnly = ccbench(2, "all_reduce --backend mpi -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(libraryOnly.exitCode, 0) << libraryOnly.err;
  EXPECT_EQ(results::cclabCopiesPerMessage(results::readResults(json).file.run), 0);  // no cclab: no transport
  EXPECT_EQ(results::cclabHostCopyPieceBytes(results::readResults(json).file.run), -1);  // nor its copies
  EXPECT_FALSE(results::cclabSharedHostBuffers(results::readResults(json).file.run));    // nor its buffers
}

// --transport auto (the default): shared memory when every rank runs on one host, MPI
// point-to-point when they do not. Two hosts are emulated by giving each rank a host name of its
// own in a UTS namespace (unshare -u, as root); that part is skipped where it is not allowed.
TEST_F(Ccbench, TheDefaultTransportIsSharedMemoryOnOneHostAndMpiAcrossHosts) {
  const Outcome oneHost = ccbench(2, "all_reduce --backend cclab -b 1K -e 1K -n 1 -w 0");
  ASSERT_EQ(oneHost.exitCode, 0) << oneHost.err;
  EXPECT_NE(oneHost.out.find("(cclab --algo ring through shared memory"), std::string::npos) << oneHost.out;
  if (runCommand("unshare -u hostname cclab-probe", dir_).exitCode != 0) GTEST_SKIP() << "unshare -u is not allowed here: two hosts cannot be emulated";
  auto onTwoHosts = [&](const std::string& args) {
    // $$: the pid of each rank's shell, so every rank gets its own host name.
    return runCommand(std::string(MPIEXEC) + " -np 2 sh -c 'exec unshare -u sh -c \"hostname cclab-host-$$ && exec " + CCBENCH + " " + args + "\"'",
                      dir_);
  };
  const Outcome twoHosts = onTwoHosts("all_reduce --backend cclab -b 1K -e 1K -n 1 -w 0");
  ASSERT_EQ(twoHosts.exitCode, 0) << twoHosts.err;
  EXPECT_NE(twoHosts.out.find("(cclab --algo ring over MPI point-to-point"), std::string::npos) << twoHosts.out;
  const Outcome forced = onTwoHosts("all_reduce --backend cclab --transport shm -b 1K -e 1K");
  EXPECT_EQ(forced.exitCode, 2) << forced.err;
  EXPECT_NE(forced.err.find("--transport shm: every rank must run on one host"), std::string::npos) << forced.err;
}

// --interleave: each point (repeat, size) on every backend in turn, the first backend rotating from
// point to point; the text still holds one nccl-tests table per backend, with the JSON's rows.
TEST_F(Ccbench, InterleaveMeasuresEachSizeOnEveryBackendInTurn) {
  const std::string json = (dir_ / "r.json").string();
  const Outcome run = ccbench(2, "all_gather --backend mpi,cclab --interleave -b 1K -e 16K -f 4 -n 2 -w 0 -N 2 -J " + json);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Import file = results::readResults(json);
  const std::vector<results::Row>& rows = file.file.rows;
  ASSERT_EQ(rows.size(), 2u * 2 * 3 * 2);  // backends x repeats x sizes x out/in place
  EXPECT_EQ(file.file.run.config.at(results::kInterleaveKey), true);
  const std::uint64_t sizes[] = {1024, 4096, 16384};
  for (std::size_t point = 0; point < 6; ++point) {  // repeat 0's three sizes, then repeat 1's
    const std::string first = point % 2 == 0 ? "mpi" : "cclab";
    const std::string second = point % 2 == 0 ? "cclab" : "mpi";
    for (std::size_t k = 0; k < 4; ++k) {
      const results::Row& row = rows[4 * point + k];
      EXPECT_EQ(row.backend, k < 2 ? first : second) << "point " << point << " row " << k;
      EXPECT_EQ(row.sizeBytes, sizes[point % 3]) << "point " << point << " row " << k;
      EXPECT_EQ(row.repeat, static_cast<int>(point / 3)) << "point " << point << " row " << k;
      EXPECT_EQ(row.inPlace, k % 2 == 1) << "point " << point << " row " << k;
    }
  }
  // The text: mpi's table, then cclab's, each its rows in the order measured, as the JSON has them.
  const results::Import text = results::importNcclTestsText(run.out, "stdout");
  ASSERT_EQ(text.file.rows.size(), rows.size());
  const std::vector<std::string> lines = rowLines(run.out);
  ASSERT_EQ(lines.size(), 12u);
  std::size_t line = 0;
  for (const std::string backend : {"mpi", "cclab"}) {
    for (std::size_t i = 0; i < rows.size(); i += 2) {
      if (rows[i].backend != backend) continue;
      EXPECT_EQ(text.file.rows[2 * line].backend, backend);
      EXPECT_EQ(results::resultLine(rows[i], rows[i + 1]), lines[line]) << backend << " line " << line;
      ++line;
    }
  }
  EXPECT_NE(run.out.find("# Side by side: all_gather"), std::string::npos) << run.out;
  // One backend: nothing to interleave, and the run says so by leaving the setting out.
  const Outcome alone = ccbench(2, "all_gather --backend cclab --interleave -b 1K -e 1K -n 1 -w 0 -J " + json);
  ASSERT_EQ(alone.exitCode, 0) << alone.err;
  EXPECT_FALSE(results::readResults(json).file.run.config.contains(results::kInterleaveKey));
}

TEST_F(Ccbench, AWrongResultIsCountedAndFailsTheRun) {
  // The hidden test hook flips one bit of one output element on rank 1 in every check.
  const Outcome run = ccbench(2, "all_reduce -b 1K -e 1K -c 1 --backend mpi,cclab --debug-corrupt-rank 1");
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_NE(run.out.find("# Out of bounds values : 2 FAILED"), std::string::npos) << run.out;  // per backend: 2 rows
  const results::Import text = results::importNcclTestsText(run.out, "stdout");
  for (const results::Row& row : text.file.rows) EXPECT_EQ(row.wrong, 1);
  EXPECT_NE(run.err.find("wrong elements"), std::string::npos);
  // And without the hook the same run is clean.
  EXPECT_EQ(ccbench(2, "all_reduce -b 1K -e 1K -c 1 --backend mpi,cclab").exitCode, 0);
}

TEST_F(Ccbench, AHangTimesOutInsteadOfWaitingForever) {
  const auto start = std::chrono::steady_clock::now();
  const Outcome run = ccbench(2, "all_reduce -b 1K -e 1K -T 2 --debug-stall-rank 1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.exitCode, 3) << run.err;
  EXPECT_NE(run.err.find("timeout: no progress"), std::string::npos) << run.err;
  EXPECT_LT(seconds, 30);
}

TEST_F(Ccbench, AnInterruptedRunLeavesNoResultsFile) {
  const fs::path json = dir_ / "interrupted.json";
  // Ctrl-C as a terminal sends it: SIGINT to the whole process group, mpirun and its ranks alike
  // (setsid gives the job a group of its own). Each rank's handler removes its temporaries at
  // once, whatever mpirun then does (it escalates to SIGKILL after odls_base_sigkill_timeout; what
  // a SIGKILL leaves, the next run removes: results_test, faults_test). Its default second is
  // not always enough on a loaded 2-core machine (5 of 30 runs beside collectives_test left the
  // rows temporary: docs/reliability.md); the test gives mpirun 3 s, what it checks is the handler.
  const std::string command = "OMPI_MCA_odls_base_sigkill_timeout=3 setsid " + std::string(MPIEXEC) + " -np 2 " + CCBENCH + " all -b 1K -e 16M -f 2 -n 50 -J " + json.string() +
                              " >/dev/null 2>&1 & pid=$!; sleep 2; kill -INT -- -$pid; wait $pid";
  const int status = std::system(("bash -c '" + command + "'").c_str());
  EXPECT_NE(status, 0);
  EXPECT_FALSE(fs::exists(json));
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace cclab
