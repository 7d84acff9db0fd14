// Calibration on committed measurements: fitted on the rows of 2 and 4 ranks (processes), it
// predicts those of 3 and 5 - the CPU sweeps of this machine and issue 17's algorithm sweeps on
// CPUs and GPUs (docs/algorithm-validation.md) - and validate's summary by algorithm adds up.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/algorithms/algorithms.h"
#include "sim/calibrate.h"
#include "sim/predictor.h"
#include "sim/validate.h"

namespace cclab::sim {
namespace {

std::string repo(const std::string& path) { return std::string(CCLAB_SOURCE_DIR) + "/" + path; }

// Every algorithm family a GPU's sweeps cover (scripts/algorithm_families.sh).
const std::initializer_list<const char*> kSweptFamilies = {"bruck", "hier", "linear", "rd", "rhd", "ring", "tree"};

// One GPU's sweeps of these algorithm families at 2-5 processes.
std::vector<Measurement> gpuSweeps(const std::string& machine, std::initializer_list<const char*> families,
                                   const std::string& sweeps = "sweeps") {
  const std::string dir = "results/measured/" + machine + "/algorithms/" + sweeps + "/";
  std::vector<std::string> files;
  for (const char* family : families) {
    for (int n : {2, 3, 4, 5}) files.push_back(repo(dir + family + "_np" + std::to_string(n) + ".json"));
  }
  return loadMeasurements(files);
}

std::vector<Measurement> h100Sweeps(std::initializer_list<const char*> families) {
  return gpuSweeps("gpu-1x-nvidia-h100", families);
}

// Fit a description (the H100's unless told) on the rows of 2 and 4 processes, validate on 3 and
// 5: the held-out median |error| below 64 KiB and from 64 KiB.
// Fitted on every row of 2 and 4 ranks, checked on those of 3 and 5 (of `backend` alone where given).
ValidationReport heldOut(const std::vector<Measurement>& rows, const std::string& preset, std::string_view backend = {}) {
  const CalibrationReport report = calibrate(loadCluster(preset), selectMeasurements(rows, {2, 4}, 0));
  std::vector<Measurement> check = selectMeasurements(rows, {3, 5}, 0);
  if (!backend.empty()) std::erase_if(check, [&](const Measurement& m) { return m.row.backend != backend; });
  return validate(report.fitted, check);
}

// A sweep folder's results files (measure_cpu_algorithms.sh: <family>_np<ranks>[-r<round>].json), sorted.
std::vector<std::string> sweepFiles(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(repo(folder))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && name.find("_np") != std::string::npos) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::pair<double, double> heldOutMedians(const std::vector<Measurement>& rows, const std::string& preset = "dgx-h100") {
  const ValidationReport report = heldOut(rows, preset);
  EXPECT_EQ(report.ranges[0].label, "< 64 KiB");
  EXPECT_EQ(report.ranges[4].label, ">= 64 KiB");
  return std::make_pair(report.ranges[0].medianAbsErrorPct, report.ranges[4].medianAbsErrorPct);
}

// The algorithms of a held-out report that meet issue 17's per-algorithm targets: median |error|
// at most 25% below 64 KiB and 10% from 64 KiB.
std::vector<std::string> meetingTargets(const ValidationReport& report) {
  std::vector<std::string> met;
  for (const AlgorithmErrors& a : report.byAlgorithm) {
    if (a.small.medianAbsErrorPct <= 25 && a.large.medianAbsErrorPct <= 10) met.push_back(std::string(name(a.collective)) + " " + a.algo);
  }
  return met;
}

// The H100 sweeps (results/measured/gpu-1x-nvidia-h100/algorithms/sweeps: cclab's algorithms,
// 2-5 processes on one GPU): fit on 2 and 4 processes, predict 3 and 5. Issue 17's targets are
// 25% below 64 KiB and 10% from 64 KiB per algorithm; this asserts the medians over all
// algorithms as they stand (5.5% and 9.0%) and how many algorithms meet both (16 of 24, among
// them the chain broadcast since each of its chunks is a message on the critical path; 19 while
// Bruck's alltoall was priced at half the buffer every step, which its 3- and 5-process rows, the
// bytes aside, fitted: 8.6% from 64 KiB then, 11.8% on the bytes it sends), and that reading the
// runs as a GPU per process (what the model did before it knew they shared one) is worse.
// 18 met (4.7% and 8.4%) until rd, rhd and tree stopped copying their input first (d1cafa2):
// these sweeps ran the code before, whose rd all_reduce and rhd reduce_scatter copied it out of
// place, and their plans no longer price that copy, so those two miss until a GPU measures again.
// 17 (5.7% and 9.0%) since the binomial broadcast's depth is in sequence on a GPU, not its rounds
// (its held-out error 14.6% / 12.8% -> 9.8% / 8.1%). 18 (5.5% and 8.5%) with rhd's all_gather
// and reduce_scatter folds at rd's fitted latency (reduce_scatter 26.9% / 13.9% -> 11.6% / 10.6%,
// all_gather 10.1% / 15.5% -> 21.6% / 8.3%).
TEST(Calibrate, GpuSweepsFitOnTwoAndFourProcessesPredictThreeAndFive) {
  const auto all = h100Sweeps(kSweptFamilies);
  for (const auto& m : all) ASSERT_EQ(m.perDevice, m.row.nranks) << m.source;  // every rank on device 0
  const auto [small, large] = heldOutMedians(all);
  EXPECT_LT(small, 6.0);
  EXPECT_LT(large, 8.6);
  const std::vector<std::string> met = meetingTargets(heldOut(all, "dgx-h100"));
  EXPECT_GE(met.size(), 18u);
  for (const char* algorithm : {"broadcast chain", "broadcast tree", "reduce ring", "all_reduce rhd", "all_reduce tree"}) {
    EXPECT_NE(std::find(met.begin(), met.end(), algorithm), met.end()) << algorithm;
  }
  std::vector<Measurement> separate = all;
  for (auto& m : separate) m.perDevice = 1;
  const auto [smallBlind, largeBlind] = heldOutMedians(separate);
  EXPECT_GT(smallBlind, small + 3.0);
  EXPECT_GT(largeBlind, large + 3.0);
}

// The same sweeps on an H200 (results/measured/gpu-1x-nvidia-h200/algorithms/sweeps), a GPU the
// model's sharing terms were not developed on, fitted on its own description: 6.7% and 8.8%
// (8.1% and 9.9% before the device copies were priced apart, 6.2% and 9.1% before the chain's
// chunks and the binomial trees' copies on the shared GPU were; 6.1% and 8.5% before rd, rhd and
// tree stopped copying their input, which these runs of the code before still did).
TEST(Calibrate, H200SweepsFitOnTwoAndFourProcessesPredictThreeAndFive) {
  const auto all = gpuSweeps("gpu-1x-nvidia-h200", kSweptFamilies);
  ASSERT_EQ(all.size(), 2226u);  // 1,126 rows at 2 and 4 processes, 1,100 at 3 and 5
  const auto [small, large] = heldOutMedians(all, "dgx-h200");
  EXPECT_LT(small, 7.0);
  EXPECT_LT(large, 9.5);
}

// The median |error| of one algorithm's held-out rows, below 64 KiB and from 64 KiB.
std::pair<double, double> algorithmErrors(const ValidationReport& report, Collective c, const std::string& algo) {
  for (const AlgorithmErrors& a : report.byAlgorithm) {
    if (a.collective == c && a.algo == algo) return {a.small.medianAbsErrorPct, a.large.medianAbsErrorPct};
  }
  ADD_FAILURE() << "no held-out rows of " << name(c) << " " << algo;
  return {0, 0};
}

// Today's code on an H200 (sweeps-2026-12-04: rd, rhd and tree reading their input in place since
// d1cafa2), fitted on dgx-h200: 6.5% and 9.8%, 15 of 24 algorithms within both targets. The
// binomial broadcast, priced by its rounds in sequence, came out 23.6% / 18.6%: at 3 processes it
// ties the chain (17 us at 8 B, the 2-process call 13 us), and its receivers read at once, so its
// depth (1, 1, 2, 2 at 2-5 processes) is what is in sequence: 13.1% / 13.0%, the rest its copies
// of 2-32 MiB at 3 processes (-11% to -23%) that the fit on 2 and 4 does not see. With rhd's
// all_gather and reduce_scatter folds at rd's fitted latency: 6.5% and 9.6%, 16 of 24 (rhd's
// all_gather 17.3% / 23.4% -> 9.2% / 6.7%).
TEST(Calibrate, TodaysH200SweepsFitOnTwoAndFourProcessesPredictThreeAndFive) {
  const auto all = gpuSweeps("gpu-1x-nvidia-h200", kSweptFamilies, "sweeps-2026-12-04");
  ASSERT_EQ(all.size(), 2226u);
  const ValidationReport report = heldOut(all, "dgx-h200");
  EXPECT_LT(report.ranges[0].medianAbsErrorPct, 7.0);
  EXPECT_LT(report.ranges[4].medianAbsErrorPct, 9.7);
  EXPECT_GE(meetingTargets(report).size(), 16u);
  const auto [small, large] = algorithmErrors(report, Collective::Broadcast, "tree");
  EXPECT_LT(small, 15.0);
  EXPECT_LT(large, 15.0);
}

// The hierarchical all_reduce of the H100 sweeps ran on nodes emulated by --ranks-per-node: 2 at
// 2 and 4 processes, 1 at 3 and 5 (the files record it). Priced on those groups, the fit on 2 and 4
// predicts 3 and 5 within issue 17's targets (5.8% / 6.2% median); priced as one node, as before
// the files said how they were grouped, it misses by about 25%.
TEST(Calibrate, HierarchicalSweepsArePricedOnTheirEmulatedNodes) {
  const auto all = h100Sweeps({"hier"});
  ASSERT_FALSE(all.empty());
  for (const auto& m : all) EXPECT_EQ(m.emulatedPerNode, m.row.nranks % 2 == 0 ? 2 : 1) << m.source;
  const auto [small, large] = heldOutMedians(all);
  EXPECT_LT(small, 10.0);
  EXPECT_LT(large, 10.0);
  std::vector<Measurement> oneNode = all;
  for (auto& m : oneNode) m.emulatedPerNode = 0;
  const auto [smallOneNode, largeOneNode] = heldOutMedians(oneNode);
  EXPECT_GT(smallOneNode, 20.0);
  EXPECT_GT(largeOneNode, 20.0);
}

// The target: measured on this machine (both backends, 2-5 ranks, results/measured/cpu-2core-amd-epyc),
// fit on 2 and 4 ranks, predict 3 and 5: sizes >= 64 KiB within 15% median absolute error. Met
// with the described cache capacities (14.4%; 15.0% since bytes read out of the call's own data
// pay a fitted rate of their own, which took the Zen 5 host's one-copy sweeps from 26.6% and
// 33.6% to 21.3% and 28.5%); with them fitted (the default since 2026-11-29: 768 KiB and 24 MiB
// on these rows, 640 KiB and 24 MiB with the fresh rate) 15.3% (15.4%), while 11 of the 18 algorithms move closer and the
// shared-memory sweeps of issue 17 go from 13.8% to 10.3% (docs/simulator.md).
TEST(Calibrate, FitOnTwoAndFourRanksPredictsThreeAndFive) {
  const std::string dir = "results/measured/cpu-2core-amd-epyc/";
  const auto all = loadMeasurements({repo(dir + "sweep_np2.json"), repo(dir + "sweep_np3.json"), repo(dir + "sweep_np4.json"),
                                     repo(dir + "sweep_np5.json")});
  const CalibrationReport described = calibrate(loadCluster("cpu-2core-amd-epyc"), selectMeasurements(all, {2, 4}, 0), false);
  EXPECT_LT(validate(described.fitted, selectMeasurements(all, {3, 5}, 0)).ranges[4].medianAbsErrorPct, 15.5);
  const CalibrationReport report = calibrate(loadCluster("cpu-2core-amd-epyc"), selectMeasurements(all, {2, 4}, 0));
  EXPECT_EQ(report.groups.size(), 36u);  // 9 collectives x 2 backends x in/out of place
  const ValidationReport heldOut = validate(report.fitted, selectMeasurements(all, {3, 5}, 0));
  const results::ErrorSummary& target = heldOut.ranges[4];
  ASSERT_EQ(target.label, ">= 64 KiB");
  EXPECT_GT(target.rows, 300);
  EXPECT_LT(target.medianAbsErrorPct, 16.0);
  for (const auto& row : heldOut.rows) EXPECT_TRUE(row.calibrated);
  // Uncalibrated, the preset is far off: calibration is what makes it predictive.
  const ValidationReport raw = validate(loadCluster("cpu-2core-amd-epyc"), selectMeasurements(all, {3, 5}, 0));
  EXPECT_GT(raw.ranges[4].medianAbsErrorPct, 1.5 * target.medianAbsErrorPct);
}

// Issue 17's check on this CPU over cclab's shared-memory transport (results/measured/
// cpu-2core-amd-epyc/algorithms-shm: every algorithm, 2-5 ranks, 5 launches each): fit on 2 and
// 4 ranks, predict 3 and 5. The fit takes the caches' capacities from the 2- and 4-rank rows
// (256 KiB and 12 MiB of the described 1 MiB and 32 MiB); held out, 16.3% below 64 KiB and 8.7%
// from it (16.1% / 9.2% before the ring reduce's chain was priced at its busiest core), 13 of
// cclab's 24 algorithms within both targets (rhd's all_reduce since its fold's
// bytes go at rd's fitted bandwidth: 15.0% -> 6.8% from 64 KiB; Bruck's alltoall since its plan
// sends the blocks it does: 20.4% -> 8.2%). With the described capacities: 13.0% from 64 KiB,
// 7 (6 while rd, rhd and tree's plans still copied their input, which these sweeps' runs did:
// they predate d1cafa2).
TEST(Calibrate, SharedMemorySweepsFitTheirCachesOnTwoAndFourRanks) {
  const std::vector<std::string> files = sweepFiles("results/measured/cpu-2core-amd-epyc/algorithms-shm");
  ASSERT_EQ(files.size(), 140u);  // 7 families (ccbench all: every collective a family has) x 4 rank counts x 5 launches
  const auto all = loadMeasurements(files, Launches::Fastest);
  const std::vector<Measurement> fitRows = selectMeasurements(all, {2, 4}, 0), checkRows = selectMeasurements(all, {3, 5}, 0);
  auto cclabMeeting = [](const ValidationReport& report) {
    int met = 0;
    for (const std::string& a : meetingTargets(report)) met += a.find(" native") == std::string::npos;
    return met;
  };
  const CalibrationReport fitted = calibrate(loadCluster("cpu-2core-amd-epyc"), fitRows);
  ASSERT_EQ(fitted.cacheFits.size(), 2u);
  EXPECT_EQ(fitted.cacheFits[0].fittedBytes, 256.0 * 1024);
  EXPECT_EQ(fitted.cacheFits[1].fittedBytes, 12.0 * 1024 * 1024);
  const ValidationReport heldOut = validate(fitted.fitted, checkRows);
  EXPECT_LT(heldOut.ranges[0].medianAbsErrorPct, 17.5);
  EXPECT_LT(heldOut.ranges[4].medianAbsErrorPct, 10.0);
  EXPECT_GE(cclabMeeting(heldOut), 12);
  const ValidationReport described = validate(calibrate(loadCluster("cpu-2core-amd-epyc"), fitRows, false).fitted, checkRows);
  EXPECT_GT(described.ranges[4].medianAbsErrorPct, 12.5);
  EXPECT_LE(cclabMeeting(described), 7);
}

// Issue 17's check on the Zen 5 VM off the caches (results/measured/cpu-2core-amd-epyc-zen5/
// algorithms-shm-off-cache: every algorithm, 2-5 ranks, five launches, ccbench --off-cache auto):
// fit on 2 and 4 ranks, predict 3 and 5. The tree family was swept again on 2026-12-05 16:00 UTC
// for its gather and scatter's runs in place (tree_gather.cc): its broadcast, reduce and all_reduce,
// the same code, moved with the launches (from 64 KiB the reduce 12.3% -> 16.1%, the all_reduce
// 7.5% -> 10.8%, which took it off the list meeting both targets). Held out, cclab's rows 17.1%
// below 64 KiB and 16.6% from it, 4 of 24 algorithms within both targets; the binomial broadcast
// 21.9% from 64 KiB since its receivers' copies are counted on their cores
// (AOneCopyBroadcastCopiesOnItsReceiversCores), 30.9% on its depth alone (before the second
// sweep); the binomial reduce 16.1% since its root reduces its children in turn
// (ABinomialReduceRootReducesItsChildrenInTurn), 36.7% with the cores sharing them; the binomial
// gather and scatter 33.7% and 36.5% as their cores copy their runs
// (ABinomialGatherAndScatterCopyRunsOnTheReceiversCores), 35.1% and 51.0% through the root's port.
TEST(Calibrate, ZenSweepsOffTheCachesFitOnTwoAndFourRanks) {
  const std::vector<std::string> files = sweepFiles("results/measured/cpu-2core-amd-epyc-zen5/algorithms-shm-off-cache");
  ASSERT_EQ(files.size(), 140u);  // 7 families x 4 rank counts x 5 launches
  const ValidationReport report = heldOut(loadMeasurements(files, Launches::Fastest), "cpu-2core-amd-epyc-zen5", kOwnBackend);
  EXPECT_LT(report.ranges[0].medianAbsErrorPct, 17.5);
  EXPECT_LT(report.ranges[4].medianAbsErrorPct, 17.0);
  EXPECT_GE(meetingTargets(report).size(), 4u);
  const auto [small, large] = algorithmErrors(report, Collective::Broadcast, "tree");
  EXPECT_LT(small, 22.5);
  EXPECT_LT(large, 22.5);
  EXPECT_LT(algorithmErrors(report, Collective::Reduce, "tree").second, 16.5);
  EXPECT_LT(algorithmErrors(report, Collective::Gather, "tree").second, 34.0);
  EXPECT_LT(algorithmErrors(report, Collective::Scatter, "tree").second, 37.0);
}

// The per-algorithm summary partitions the rows by (implementation, collective, algorithm) and
// gives each group's median |error| below and from 64 KiB: recomputed here from the rows.
TEST(Calibrate, ValidateSummarisesEachAlgorithm) {
  const std::string dir = "results/measured/cpu-2core-amd-epyc/algorithms/";
  const auto rows = loadMeasurements({repo(dir + "ring_np3.json"), repo(dir + "rd_np3.json")});
  const ValidationReport report = validate(loadCluster("cpu-2core-amd-epyc"), rows);
  ASSERT_GE(report.byAlgorithm.size(), 3u);  // cclab rd, cclab ring (several collectives), mpi native
  std::size_t covered = 0;
  for (const AlgorithmErrors& a : report.byAlgorithm) {
    std::vector<double> small, large;
    for (const auto& v : report.rows) {
      const results::Row& r = v.measurement->row;
      if (r.backend != a.backend || r.collective != a.collective || r.algo != a.algo) continue;
      (r.sizeBytes < 64 * 1024 ? small : large).push_back(std::abs(v.errorPct));
    }
    EXPECT_EQ(a.small.rows, static_cast<int>(small.size())) << a.backend << " " << a.algo;
    EXPECT_EQ(a.large.rows, static_cast<int>(large.size())) << a.backend << " " << a.algo;
    EXPECT_NEAR(a.small.medianAbsErrorPct, results::median(small), 1e-9);
    EXPECT_NEAR(a.large.medianAbsErrorPct, results::median(large), 1e-9);
    covered += small.size() + large.size();
  }
  EXPECT_EQ(covered, report.rows.size());
  const results::Json json = toJson(report);
  EXPECT_EQ(json.at("by_algorithm").size(), report.byAlgorithm.size());
}

}  // namespace
}  // namespace cclab::sim
