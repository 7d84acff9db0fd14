// ccbench --algo auto: the tuner takes, at every size, the algorithm the simulator prices fastest
// on the cluster it is given, and finds the cluster shipped for a machine.

#include "bench/tuner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "results/results.h"

namespace cclab::bench {
namespace {

// A calibration entry for cclab's `algo` of `collective`, out of place, on the shared-memory link.
sim::Calibration entry(Collective collective, const std::string& algo, double latencyUs, double bandwidthGBps) {
  sim::Calibration c;
  c.implementation = "cclab";
  c.collective = collective;
  c.algo = algo;
  c.link = sim::LinkClass::Intra;
  c.latencyUs = latencyUs;
  c.bandwidthGBps = bandwidthGBps;
  c.cacheBandwidthGBps = {bandwidthGBps, bandwidthGBps};
  return c;
}

TEST(Tuner, PicksTheFastestPredictionAtEverySize) {
  sim::Cluster cluster = sim::loadCluster("cpu-2core-amd-epyc");
  // Recursive doubling: cheap steps, slow bytes; the ring: dear steps, fast bytes. The tuner must
  // move from rd to ring where the two predictions cross, and never pick a slower one.
  // The other all_reduce algorithms are dear at every size.
  cluster.calibrations = {entry(Collective::AllReduce, "rd", 0.5, 1.0), entry(Collective::AllReduce, "ring", 20.0, 20.0),
                          entry(Collective::AllReduce, "rhd", 100, 0.1), entry(Collective::AllReduce, "tree", 100, 0.1),
                          entry(Collective::AllReduce, "hier", 100, 0.1), entry(Collective::AllReduce, "linear", 100, 0.1)};
  SimulatorChooser chooser(cluster, 4, 4);
  bool sawRd = false, sawRing = false;
  for (std::size_t bytes = 8; bytes <= (std::size_t{256} << 20); bytes *= 2) {
    const Algorithm& picked = chooser.choose(Collective::AllReduce, bytes, false);
    EXPECT_EQ(picked.collective, Collective::AllReduce);
    double best = std::numeric_limits<double>::infinity();
    for (const Algorithm& a : allAlgorithms()) {
      if (a.collective == Collective::AllReduce) best = std::min(best, chooser.predictUs(Collective::AllReduce, a.name, bytes, false));
    }
    EXPECT_DOUBLE_EQ(chooser.predictUs(Collective::AllReduce, picked.name, bytes, false), best) << bytes << " B: " << picked.name;
    sawRd |= picked.name == "rd";
    sawRing |= picked.name == "ring";
    if (picked.name == "ring") {
      EXPECT_GE(bytes, std::size_t{16} << 10) << "ring picked far below the crossover";
    }
    if (bytes >= (std::size_t{1} << 20)) {
      EXPECT_EQ(picked.name, "ring") << bytes;
    }
  }
  EXPECT_TRUE(sawRd);
  EXPECT_TRUE(sawRing);
  // Asked again, the same answer (ranks must agree call after call), whether the size before was
  // the same (the last pick, remembered) or another (the map).
  EXPECT_EQ(chooser.choose(Collective::AllReduce, 8, false).name, "rd");
  EXPECT_EQ(chooser.choose(Collective::AllReduce, 8, false).name, "rd");
  EXPECT_EQ(chooser.choose(Collective::AllReduce, std::size_t{1} << 20, false).name, "ring");
  EXPECT_EQ(chooser.choose(Collective::AllReduce, 8, false).name, "rd");
  EXPECT_EQ(chooser.choose(Collective::AllReduce, std::size_t{1} << 20, false).name, "ring");
}

// An algorithm the calibration never measured would be priced with the pooled link constants (here
// the preset's fast shared memory) and look cheaper than the measured one: auto keeps to the
// measured ones while the collective has any, and offers the rest once it has none.
TEST(Tuner, ChoosesAmongTheAlgorithmsTheCalibrationMeasured) {
  sim::Cluster cluster = sim::loadCluster("cpu-2core-amd-epyc");
  cluster.calibrations = {entry(Collective::AllToAll, "pairwise", 50.0, 1.0)};
  SimulatorChooser measured(cluster, 4, 4);
  EXPECT_LT(measured.predictUs(Collective::AllToAll, "linear", 8, false), measured.predictUs(Collective::AllToAll, "pairwise", 8, false));
  for (std::size_t bytes : {std::size_t{8}, std::size_t{64} << 10, std::size_t{64} << 20}) {
    EXPECT_EQ(measured.choose(Collective::AllToAll, bytes, false).name, "pairwise") << bytes;
  }
  // Measured too, and cheaper: taken.
  cluster.calibrations.push_back(entry(Collective::AllToAll, "linear", 5.0, 1.0));
  EXPECT_EQ(SimulatorChooser(cluster, 4, 4).choose(Collective::AllToAll, 8, false).name, "linear");
  // No alltoall measured at all: every algorithm is a candidate again.
  cluster.calibrations = {entry(Collective::AllReduce, "ring", 50.0, 1.0)};
  SimulatorChooser unmeasured(cluster, 4, 4);
  EXPECT_EQ(unmeasured.choose(Collective::AllToAll, 8, false).collective, Collective::AllToAll);
  EXPECT_EQ(unmeasured.choose(Collective::AllReduce, 8, false).name, "ring");
}

TEST(Tuner, EveryCollectiveGetsOneOfItsOwnAlgorithms) {
  SimulatorChooser chooser(sim::loadCluster("cpu-2core-amd-epyc"), 5, 5);
  for (Collective c : allCollectives()) {
    for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, std::size_t{1} << 20, std::size_t{256} << 20}) {
      for (bool inPlace : {false, true}) EXPECT_EQ(chooser.choose(c, bytes, inPlace).collective, c) << name(c) << " " << bytes;
    }
  }
  EXPECT_EQ(chooser.describe(Collective::AllReduce), "auto");
}

TEST(Tuner, SeveralHostsNeedAClusterWithANetwork) {
  EXPECT_THROW(SimulatorChooser(sim::loadCluster("cpu-2core-amd-epyc"), 4, 2), InputError);
  SimulatorChooser acrossNodes(sim::loadCluster("dgx-h100"), 16, 8);  // 2 nodes of 8 GPUs
  EXPECT_EQ(acrossNodes.choose(Collective::AllReduce, std::size_t{1} << 30, false).collective, Collective::AllReduce);
}

// Auto's pick for collective `c` at `n` ranks against the fastest algorithm measured at each size
// (`measured`: size -> algorithm -> us): adds the sizes it could score to `sizes` and returns how
// many picks measured within 5% of the fastest; prints the misses for the reader of the output.
int scorePicks(SimulatorChooser& chooser, Collective c, int n, const std::map<std::uint64_t, std::map<std::string, double>>& measured,
               int& sizes) {
  int within = 0;
  for (const auto& [bytes, byAlgo] : measured) {
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [algo, us] : byAlgo) fastest = std::min(fastest, us);
    const auto pick = byAlgo.find(std::string(chooser.choose(c, bytes, false).name));
    if (pick == byAlgo.end()) continue;
    ++sizes;
    within += pick->second <= 1.05 * fastest;
    if (pick->second > 1.05 * fastest) {
      std::printf("  miss: %s np%d %llu B: picked %s, %.2fx the fastest\n", std::string(name(c)).c_str(), n,
                  static_cast<unsigned long long>(bytes), pick->first.c_str(), pick->second / fastest);
    }
  }
  return within;
}

// Measured on one GPU (results/measured/<machine>/algorithms/<launches>: every algorithm of five
// collectives at 3 and 5 processes sharing the GPU, one launch each): auto's pick, tuned on the
// calibration of 2 and 4 processes (sweeps/calibrated.json, which prices the processes' sharing
// of the GPU), against the fastest algorithm at each size. Counted: the out-of-place sizes at
// which the pick's own launch is within 5% of the fastest.
int picksWithinFivePercent(const std::string& machine, const std::string& launches, int& sizes, const std::string& sweeps = "sweeps") {
  const std::filesystem::path dir = std::filesystem::path(CCLAB_SOURCE_DIR) / "results/measured" / machine / "algorithms";
  const sim::Cluster calibrated = sim::loadCluster((dir / sweeps / "calibrated.json").string());
  int within = 0;
  sizes = 0;
  for (int n : {3, 5}) {
    SimulatorChooser chooser(calibrated, n, n, n);
    for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast, Collective::AllToAll}) {
      std::map<std::uint64_t, std::map<std::string, double>> measured;  // size -> algorithm -> us
      for (const Algorithm& a : allAlgorithms()) {
        const auto file = dir / launches / fmt::format("{}_np{}_{}.json", name(c), n, a.name);
        if (a.collective != c || a.name == "hier" || !std::filesystem::exists(file)) continue;
        for (const results::Row& r : results::readResults(file.string()).file.rows) {
          if (!r.inPlace && r.sizeBytes > 0) measured[r.sizeBytes][r.algo] = r.timeUs;
        }
      }
      within += scorePicks(chooser, c, n, measured, sizes);
    }
  }
  return within;
}

// The auto launch of that call (auto-np35-linear/*_auto.json), tuned on the calibration before it
// had the linear algorithms' sweeps, was within 5% at 55 of the 114 sizes: the linear algorithms
// were the fastest at 44 of them. The calibration with them was within 5% at 91; with the device
// copies priced apart (rd and rhd's copy of the input no longer spread over their steps), 107;
// with the chain's chunks as messages and the binomial trees' copies on the shared GPU, 109;
// with the binomial broadcast's receivers reading at once on a GPU (its depth in sequence, not its
// rounds: Transfer::devicePullSteps), 107: at 5 processes the tree, priced one step cheaper, is
// picked at 8 B, 512 KiB and 2 MiB, where the chain ran 1.09-1.21x faster in this launch; 98 with
// rhd's all_gather fold at rd's fitted latency (Phase::latencyFitOf): at 5 processes rhd, which
// ran 1.09-1.29x faster than the linear all_gather here, is priced above it: these sweeps ran the
// code before d1cafa2, whose rd copied its input out of place, so rd's fitted latency out of place
// (22.0 us a step, in place 12.8) carries a copy the fold does not make (the H200's launches of
// today's code below, rd's latency 11.2 / 10.6: its picks 93 -> 104).
TEST(Tuner, PicksOnTheH100CalibrationScoredAgainstItsMeasuredFamilies) {
  int sizes = 0;
  const int within = picksWithinFivePercent("gpu-1x-nvidia-h100", "auto-np35-linear", sizes);
  EXPECT_EQ(sizes, 114);
  std::printf("auto within 5%% of the fastest family: %d of %d sizes\n", within, sizes);
  EXPECT_GE(within, 98);
}

// The same on an H200 (sweeps and launches of one call; its own calibration, fitted on the
// dgx-h200 description), scored against each of that machine's two launch sets:
// 96 and 91 of 114 when this test was written, 105 and 101 with the device copies priced apart
// (the two sets differ by the launches' own noise), 103 and 100 with the chain's chunks and the
// trees' shared-GPU copies priced: the broadcast's chain/tree crossover at 2 MiB moved onto a
// tie (the sweeps measured 26.5 and 26.3 us at 3 processes; the launches, chain ahead by 8-10%).
// 95 and 91 since rd, rhd and tree read their input in place (d1cafa2): these sweeps ran the code
// before, whose rd copied its input out of place, and with the copy no longer in rd's plan its fit
// spreads it over rd's steps, so at 5 processes (4 steps to the fit's 1 and 2) rd is priced dear
// and auto takes the linear all_reduce from 8 B to 128 KiB, 1.2-1.3x slower there. A GPU
// measuring today's code again is what mends it (docs/gpu.md). 86 and 86 with the binomial
// broadcast's depth in sequence on a GPU: at 3 processes the tree is picked, which these launches
// of the code before ran 1.05-1.21x slower than the chain (the launches of today's code, below,
// run it 1.09-1.31x faster; the sweeps of both, a tie).
TEST(Tuner, PicksOnTheH200CalibrationScoredAgainstItsMeasuredFamilies) {
  for (const auto& [launches, atLeast] : {std::pair{"auto-np35", 86}, std::pair{"auto-np35-calibrated", 86}}) {
    int sizes = 0;
    const int within = picksWithinFivePercent("gpu-1x-nvidia-h200", launches, sizes);
    EXPECT_EQ(sizes, 114) << launches;
    std::printf("%s: auto within 5%% of the fastest family: %d of %d sizes\n", launches, within, sizes);
    EXPECT_GE(within, atLeast) << launches;
  }
}

// Today's code on an H200 (2026-12-04): sweeps-2026-12-04 (rd, rhd and tree in place) and its
// calibration, and the launches of auto-np35-2026-12-04, scored the same way: 73 of 114, 93 since
// the binomial broadcast's receivers read at once on a GPU (Transfer::devicePullSteps; the
// tree had been priced 20% dear at 3 processes and the chain picked, the tree 1.09-1.55x
// faster); 104 since rhd's all_gather and reduce_scatter fold at rd's fitted latency
// (Phase::latencyFitOf: their fit, which never sees a fold, priced it 18-35% fast at 3 processes
// and auto took rhd, 1.15-1.49x slower than the linear all_gather). The 5-process all_reduce and
// all_gather pick rd and rhd, the fastest; the misses left are all_reduce at 3 processes (rd,
// 1.05-1.08x) and reduce_scatter at 3 processes and 8 MiB.
TEST(Tuner, PicksOnTheH200CalibrationOfTodaysCode) {
  int sizes = 0;
  const int within = picksWithinFivePercent("gpu-1x-nvidia-h200", "auto-np35-2026-12-04", sizes, "sweeps-2026-12-04");
  EXPECT_EQ(sizes, 114);
  std::printf("auto within 5%% of the fastest family: %d of %d sizes\n", within, sizes);
  EXPECT_GE(within, 104);
}

// On this CPU over cclab's shared memory: auto's picks on the shipped calibration
// (models/calibrations/cpu-2core-amd-epyc-shm.json, fitted on the 2- and 4-rank sweeps), scored
// against the sweeps themselves (every algorithm at 2-5 ranks, each size its fastest of 5
// launches). Counted: the out-of-place sizes of the five collectives of issue 17 section 4 at
// which the picked algorithm measured within 5% of the fastest. `calibration` "" is the shipped
// one. Since 2026-12-07 that is the fit of that day's sweep of today's code on a Zen 3 VM
// (kZen3Sweeps, with the linear reduce_scatter): 168 of 211 on it (183 since the ranks rd and rhd
// fold out take their turns on these VMs' cores, IntraNode::waitingRanksTakeTurns: at 5 ranks the
// one-shot reduce_scatter, not rhd, below 32 KiB), where the calibration shipped
// before (fitted on the 2026-11-28 sweep of another Zen 3 VM, every message through the slots)
// scores 135 and the fit of the 2026-12-06 Zen 3 VM's sweep 148 (neither has the linear
// reduce_scatter, the fastest at 3-5 ranks below 32 KiB there). The history below is of the
// calibration before, scored against its own sweep (algorithms-shm): 182 of 211 with the caches' capacities fitted
// (2026-11-29), 185 on the same rows with the described capacities (`ccsim calibrate
// --cache-capacity described`). With the capacities fitted, rhd's all_reduce at 3 ranks came out
// 14-17% fast (512 KiB-2 MiB) and auto took it over the ring, measured 1.17-1.19x slower: 180;
// its fold's bytes at rd's fitted bandwidth (Phase::bandwidthFitOf) give the ring back (182).
// With flows sharing the cores (Transfer::CriticalBytes::nodeMessages), 180: the chain
// broadcast's fit, its 2-rank rows one-way and its 4-rank rows the node's 3 buffers over 2 cores,
// prices 4 ranks 3-20% dear at 128 KiB-8 MiB out of place (the root's copy of its input, which
// the plan does not see, slows 2 ranks by 1.2-1.6x and 4 by 1.1-1.4x), so auto takes the binomial
// tree there, measured 1.06-1.20x slower.
// `machine` names the folder under results/measured/ and the preset whose -shm calibration is
// shipped; `throughSlots`: the sweeps ran every message through the slots, so they are priced so.
// `sweeps`: the folder of the sweeps under it.
// The Zen 3 VM's sweeps of today's code, which its shipped calibration was fitted on (2026-12-07).
const std::string kZen3Sweeps = "algorithms-shm-2026-12-07-zen3";

int cpuPicksWithinFivePercent(int& sizes, const std::string& calibration = "", const std::string& machine = "cpu-2core-amd-epyc",
                              bool throughSlots = true, const std::string& sweeps = "algorithms-shm") {
  const std::filesystem::path source(CCLAB_SOURCE_DIR);
  const std::filesystem::path dir = source / "results/measured" / machine / sweeps;
  sim::Cluster cluster =
      sim::loadCluster(calibration.empty() ? (source / "models/calibrations" / (machine + "-shm.json")).string() : calibration);
  // The AMD sweeps ran every message through the slots: priced so (its calibration ships the
  // single copy from 64 KiB since 2026-12-04, which would price other runs than these).
  if (throughSlots) cluster.intra.singleCopyBytes = cluster.intra.singleCopyRootedBytes = 0;
  // (ranks, collective) -> size -> algorithm -> us; hier left out: auto takes it only across hosts
  std::map<std::pair<int, Collective>, std::map<std::uint64_t, std::map<std::string, double>>> measured;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.path().filename().string().find("_np") == std::string::npos) continue;
    for (const results::Row& r : results::readResults(entry.path().string()).file.rows) {
      if (r.backend != "cclab" || r.algo == "hier" || r.inPlace || r.sizeBytes == 0) continue;
      auto [it, fresh] = measured[{r.nranks, r.collective}][r.sizeBytes].try_emplace(r.algo, r.timeUs);
      if (!fresh) it->second = std::min(it->second, r.timeUs);
    }
  }
  int within = 0;
  sizes = 0;
  for (int n : {2, 3, 4, 5}) {
    SimulatorChooser chooser(cluster, n, n);
    for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast, Collective::AllToAll}) {
      within += scorePicks(chooser, c, n, measured[{n, c}], sizes);
    }
  }
  return within;
}

TEST(Tuner, PicksOnTheShippedCpuCalibrationScoredAgainstItsSweeps) {
  int sizes = 0;
  const char* other = std::getenv("CCLAB_TUNER_CALIBRATION");  // to score another calibration by hand
  const int within = cpuPicksWithinFivePercent(sizes, other != nullptr ? other : "", "cpu-2core-amd-epyc", false, kZen3Sweeps);
  std::printf("auto within 5%% of the fastest algorithm: %d of %d sizes\n", within, sizes);
  if (other != nullptr) return;
  EXPECT_EQ(sizes, 211);
  EXPECT_GE(within, 180);
}

// The same on the Zen 5 VM's own preset: its shipped calibration
// (models/calibrations/cpu-2core-amd-epyc-zen5-shm.json, ccsim calibrate --ranks 2,4 of its sweep of
// 2026-12-07, today's code with the linear reduce_scatter) scored against that sweep
// (results/measured/cpu-2core-amd-epyc-zen5/algorithms-shm-2026-12-07, each size its fastest of 5
// launches): 193 of 211 (176 with the ranks folded out priced as not taking their turns). The
// calibration shipped before (the fit of algorithms-shm, 2026-12-04/05, which scored 200-201 on its
// own sweep) scores 157 on this one.
const std::string kZen5Sweeps = "algorithms-shm-2026-12-07";

TEST(Tuner, PicksOnTheZen5CalibrationScoredAgainstItsSweeps) {
  int sizes = 0;
  const int within = cpuPicksWithinFivePercent(sizes, "", "cpu-2core-amd-epyc-zen5", false, kZen5Sweeps);
  std::printf("auto within 5%% of the fastest algorithm: %d of %d sizes\n", within, sizes);
  EXPECT_EQ(sizes, 211);
  EXPECT_GE(within, 190);
  // What this VM tuned on before it had a preset of its own: the Zen 3 host's calibration (174 of
  // 211 on this sweep).
  int before = 0;
  const std::string zen3 = (std::filesystem::path(CCLAB_SOURCE_DIR) / "models/calibrations/cpu-2core-amd-epyc-shm.json").string();
  const int withZen3 = cpuPicksWithinFivePercent(before, zen3, "cpu-2core-amd-epyc-zen5", false, kZen5Sweeps);
  std::printf("tuned on the Zen 3 host's calibration: %d of %d sizes\n", withZen3, before);
  EXPECT_LT(withZen3, within);
}

TEST(Tuner, FindsTheClusterShippedForThisMachine) {
  const TuningCluster shipped = tuningCluster("", {"AMD EPYC 7B13 64-Core Processor", 2}, false);
  EXPECT_NE(shipped.source.find("models/calibrations/cpu-2core-amd-epyc.json"), std::string::npos) << shipped.source;
  EXPECT_FALSE(shipped.cluster.calibrations.empty());
  // Over the shared-memory transport, its own calibration (the algorithms cost otherwise there).
  const TuningCluster shm = tuningCluster("", {"AMD EPYC 7B13 64-Core Processor", 2}, false, "shm");
  EXPECT_NE(shm.source.find("models/calibrations/cpu-2core-amd-epyc-shm.json"), std::string::npos) << shm.source;
  EXPECT_NE(shm.cluster.document.dump(), shipped.cluster.document.dump());
  // No preset names the device: the closest of its kind, and its calibration where one is shipped.
  const TuningCluster cpu = tuningCluster("", {"Some Other CPU", 8}, false);
  EXPECT_EQ(cpu.cluster.intra.kind, sim::FabricKind::SharedMemory);
  EXPECT_NE(cpu.source.find("closest"), std::string::npos);
  EXPECT_FALSE(cpu.cluster.calibrations.empty()) << cpu.source;
  // ... priced with this machine's cores: 4 ranks on 8 cores do not share them.
  EXPECT_EQ(cpu.cluster.intra.cores, 8);
  EXPECT_NE(cpu.source.find("with this machine's 8 cores for its 2"), std::string::npos) << cpu.source;
  const TuningCluster cpuShm = tuningCluster("", {"Some Other CPU", 8}, false, "shm");
  EXPECT_EQ(cpuShm.cluster.intra.cores, 8);
  sim::Cluster asDescribed = cpuShm.cluster;
  asDescribed.intra.cores = 2;
  const SimulatorChooser eight(cpuShm.cluster, 5, 0, 1), two(asDescribed, 5, 0, 1);
  // No ranks queued on shared cores, yielding them: the binomial broadcast's busiest core serves
  // its 6 message ends at 5 ranks on 2 cores, and an all_reduce's copies share 2 cores.
  EXPECT_LT(eight.predictUs(Collective::Broadcast, "tree", 8, false), 0.8 * two.predictUs(Collective::Broadcast, "tree", 8, false));
  for (const char* algo : {"tree", "ring", "rd"}) {
    EXPECT_LT(eight.predictUs(Collective::AllReduce, algo, 1 << 20, false), two.predictUs(Collective::AllReduce, algo, 1 << 20, false)) << algo;
  }
  // Of the same vendor where no core count matches: an 8-core Intel machine tunes on the Intel VM's
  // preset (priced with its own 8 cores), an unknown vendor on the first.
  const TuningCluster intel = tuningCluster("", {"Intel(R) Xeon(R) Platinum 8480+", 8}, false, "shm");
  EXPECT_EQ(intel.cluster.name.rfind("cpu-2core-intel-xeon", 0), 0u) << intel.source;
  EXPECT_EQ(intel.cluster.intra.cores, 8);
  EXPECT_EQ(tuningCluster("", {"AMD EPYC 9654 96-Core Processor", 8}, false, "shm").cluster.name.rfind("cpu-2core-amd-epyc", 0), 0u);
  EXPECT_EQ(cpu.cluster.name, "cpu-2core-amd-epyc");  // no vendor in common: the first shared-memory preset by name
  // A VM of the same size: a preset with as many cores, over shared memory its shm calibration.
  const TuningCluster sameSize = tuningCluster("", {"Some Other CPU", 2}, false, "shm");
  EXPECT_EQ(sameSize.cluster.intra.cores, 2);
  EXPECT_NE(sameSize.source.find("-shm.json"), std::string::npos) << sameSize.source;
  EXPECT_NE(sameSize.source.find("the closest: no preset matches 'Some Other CPU'"), std::string::npos) << sameSize.source;
  // Two VMs that both call their CPU "AMD EPYC": the Zen 5 one (family 26) tunes on its own
  // preset and calibration, any other family on the AMD preset.
  const TuningCluster zen5 = tuningCluster("", {"AMD EPYC", 2, 26}, false, "shm");
  EXPECT_EQ(zen5.cluster.name, "cpu-2core-amd-epyc-zen5");
  EXPECT_NE(zen5.source.find("models/calibrations/cpu-2core-amd-epyc-zen5-shm.json"), std::string::npos) << zen5.source;
  EXPECT_EQ(tuningCluster("", {"AMD EPYC", 2, 25}, false, "shm").cluster.name.rfind("cpu-2core-amd-epyc", 0), 0u);
  EXPECT_NE(tuningCluster("", {"AMD EPYC", 2, 25}, false, "shm").source.find("cpu-2core-amd-epyc-shm.json"), std::string::npos);
  EXPECT_EQ(sim::presetForDevice({"AMD EPYC", 2, 26}), "cpu-2core-amd-epyc-zen5");
  EXPECT_EQ(sim::presetForDevice({"AMD EPYC", 2, 0}), "cpu-2core-amd-epyc");   // files before cpu_family
  EXPECT_EQ(sim::presetForDevice({"AMD EPYC", 4, 26}), "");                      // not a 2-core VM
  // A 2-core Intel Xeon VM has a preset of its own.
  EXPECT_EQ(tuningCluster("", {"Intel(R) Xeon(R) Processor", 2}, false, "shm").cluster.name.rfind("cpu-2core-intel-xeon", 0), 0u);
  const TuningCluster gpu = tuningCluster("", {"Some Future GPU", 0}, true);
  EXPECT_NE(gpu.cluster.intra.kind, sim::FabricKind::SharedMemory);
  // --cluster wins, and a bad one is input error.
  EXPECT_EQ(tuningCluster("dgx-h100", {"AMD EPYC", 2}, false).cluster.name, "dgx-h100");
  EXPECT_THROW(tuningCluster("no-such-cluster", {"", 2}, false), InputError);
}

// ccbench's --shm-single-copy default: the threshold the machine's description measured.
TEST(Tuner, TheSingleCopyThresholdIsTheMachinesDescriptions) {
  const SingleCopy intel = describedSingleCopy("", {"Intel(R) Xeon(R) Processor", 2});
  EXPECT_EQ(intel.bytes, 16u * 1024);
  EXPECT_EQ(intel.rootedBytes, 16u * 1024);
  EXPECT_EQ(intel.describedBy.rfind("cpu-2core-intel-xeon", 0), 0u) << intel.describedBy;
  const SingleCopy amd = describedSingleCopy("", {"AMD EPYC 7B13 64-Core Processor", 2});
  EXPECT_EQ(amd.bytes, 64u * 1024);
  EXPECT_EQ(amd.rootedBytes, 64u * 1024);
  EXPECT_EQ(amd.describedBy.rfind("cpu-2core-amd-epyc", 0), 0u) << amd.describedBy;
  EXPECT_EQ(describedSingleCopy("", {"Some Other CPU", 2}).bytes, 64u * 1024);  // the closest preset's: the AMD VM's
  EXPECT_EQ(describedSingleCopy("cpu-2core-intel-xeon", {"AMD EPYC", 2}).bytes, 16u * 1024);  // --cluster wins
  EXPECT_EQ(describedSingleCopy("dgx-h100", {"AMD EPYC", 2}).bytes, 0u);                        // no shared memory
  EXPECT_THROW(describedSingleCopy("no-such-cluster", {"", 2}), InputError);
}

// ccbench's --host-copy-piece default: the pieces the machine's description measured.
TEST(Tuner, TheHostCopyPieceIsTheMachinesDescriptions) {
  const CopyPiece intel = describedCopyPiece("", {"Intel(R) Xeon(R) Processor", 2});
  EXPECT_EQ(intel.bytes, 0u);
  EXPECT_EQ(intel.describedBy.rfind("cpu-2core-intel-xeon", 0), 0u) << intel.describedBy;
  const CopyPiece amd = describedCopyPiece("", {"AMD EPYC 7B13 64-Core Processor", 2});
  EXPECT_EQ(amd.bytes, HostDevice::kDefaultCopyPieceBytes);
  EXPECT_TRUE(amd.describedBy.empty());  // the default: the header need not name a description
  EXPECT_EQ(describedCopyPiece("cpu-2core-intel-xeon", {"AMD EPYC", 2}).bytes, 0u);  // --cluster wins
  EXPECT_EQ(describedCopyPiece("dgx-h100", {"AMD EPYC", 2}).bytes, HostDevice::kDefaultCopyPieceBytes);  // no shared memory
  EXPECT_THROW(describedCopyPiece("no-such-cluster", {"", 2}), InputError);
}

}  // namespace
}  // namespace cclab::bench
