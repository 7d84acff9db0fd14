// The collective cost models: published figures from uncalibrated presets, the bytes each
// algorithm's plan moves, auto's choice, and the shapes the simulator must handle.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "sim/algorithms/algorithms.h"
#include "sim/predictor.h"
#include "sim/pricing.h"

namespace cclab::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

double busbwGBps(const std::string& preset, std::optional<int> nodes, std::optional<int> gpusPerNode, std::string_view algo,
                 Collective c = Collective::AllReduce, double bytes = 8 * kGiB) {
  Cluster cluster = loadCluster(preset);
  reshape(cluster, nodes, gpusPerNode);
  const Predictor predictor(cluster);
  const Prediction p = predictor.predict(Query{c, algo, bytes, cluster.gpus(), cluster.nodes, false, ""});
  return bytes / (p.timeUs * 1e-6) / 1e9 * busBandwidthFactor(c, cluster.gpus());
}

// shared/reference/published-busbw.md: large-message nccl-tests busbw, within 10%.
TEST(Model, PresetsReproducePublishedBusBandwidth) {
  struct Case {
    const char* what;
    double published;
    double predicted;
  };
  const Case cases[] = {
      {"8x A100 NVLink3, ring all_reduce (nccl-tests#149)", 230, busbwGBps("dgx-a100", {}, {}, "ring")},
      {"8x H100 NVLink4, ring all_reduce (nccl-tests#212, nccl#1442)", 365, busbwGBps("dgx-h100", {}, {}, "ring")},
      {"8x H100 NVLS all_reduce (nccl-tests#212, nccl#1455)", 480, busbwGBps("dgx-h100", {}, {}, "nvls")},
      {"one NDR 400 Gb/s NIC per node, ring across 16 nodes (nccl-tests#290)", 48, busbwGBps("dgx-h100", 16, 1, "ring")},
      {"one HDR 200 Gb/s NIC per node, ring across 16 nodes (nccl-tests#119)", 24, busbwGBps("dgx-a100", 16, 1, "ring")},
      {"2 DGX A100 nodes, 8 HDR NICs each (nccl#1576)", 192, busbwGBps("dgx-a100", 2, {}, "ring")},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(c.predicted, c.published, 0.10 * c.published) << c.what << ": predicted " << c.predicted;
  }
}

// The plans move the bytes docs/simulator.md tabulates.
TEST(Model, PlansMoveTheTabulatedBytes) {
  const double s = 1 << 20;
  for (int n : {2, 3, 8, 16}) {
    const double f = (n - 1.0) / n;
    Plan ring;
    ASSERT_TRUE(planRing(Collective::AllReduce, Shape{n, 1}, s, ring));
    EXPECT_DOUBLE_EQ(ring.phases[0].transfers[0].bytes, 2 * f * s);
    EXPECT_DOUBLE_EQ(ring.phases[0].transfers[0].steps, 2.0 * (n - 1));
    EXPECT_DOUBLE_EQ(ring.phases[0].reduceBytes, f * s);
    Plan ag;
    ASSERT_TRUE(planRing(Collective::AllGather, Shape{n, 1}, s, ag));
    EXPECT_DOUBLE_EQ(ag.phases[0].transfers[0].bytes, f * s);
    Plan a2a;
    ASSERT_TRUE(planPairwise(Collective::AllToAll, Shape{n, 1}, s, a2a));
    EXPECT_DOUBLE_EQ(a2a.phases[0].transfers[0].bytes, f * s);
    Plan rhd;
    ASSERT_TRUE(planRhd(Collective::AllReduce, Shape{n, 1}, s, rhd));
    // Folded to pof2 = 2^floor(log2 n) ranks: an exchange in and one out, each of the whole
    // buffer, in a phase of their own in which only the n - pof2 folding pairs copy.
    const double pof2 = powerOfTwoBelow(n);
    EXPECT_DOUBLE_EQ(rhd.phases[0].transfers[0].steps, 2 * log2Floor(n));
    EXPECT_DOUBLE_EQ(rhd.phases[0].transfers[0].bytes, 2 * (s - s / pof2));
    Plan rd;
    ASSERT_TRUE(planRd(Collective::AllReduce, Shape{n, 1}, s, rd));
    EXPECT_DOUBLE_EQ(rd.phases[0].transfers[0].steps, log2Floor(n));
    EXPECT_EQ(rd.phases[0].transfers[0].copiers, static_cast<int>(pof2));
    EXPECT_EQ(rd.phaseCount, isPowerOfTwo(n) ? 1 : 2);
    EXPECT_EQ(rhd.phaseCount, isPowerOfTwo(n) ? 1 : 2);
    if (!isPowerOfTwo(n)) {
      for (const Plan* folded : {&rd, &rhd}) {
        EXPECT_DOUBLE_EQ(folded->phases[1].transfers[0].steps, 2);
        EXPECT_DOUBLE_EQ(folded->phases[1].transfers[0].bytes, 2 * s);
        EXPECT_EQ(folded->phases[1].transfers[0].copiers, n - static_cast<int>(pof2));
        EXPECT_DOUBLE_EQ(folded->phases[1].reduceBytes, s);  // the standing-in rank reduces the extra rank's buffer
      }
      Plan gathered;  // an all_gather's fold moves data and reduces nothing
      ASSERT_TRUE(planRhd(Collective::AllGather, Shape{n, 1}, s, gathered));
      EXPECT_DOUBLE_EQ(gathered.phases[1].reduceBytes, 0);
    }
  }
  EXPECT_EQ(powerOfTwoBelow(5), 4);
  EXPECT_EQ(log2Floor(5), 2);
  EXPECT_EQ(log2Floor(8), 3);
  // The pipelined chain: a 32 MiB broadcast in 1 MiB chunks over 5 ranks is 32 + 3 messages in
  // sequence on the critical path (each chunk a message of its own), and a buffer plus 3 chunks
  // through a port.
  Plan chain;
  ASSERT_TRUE(planChain(Collective::Broadcast, Shape{5, 1}, 32 * s, chain));
  EXPECT_DOUBLE_EQ(chain.phases[0].transfers[0].steps, 32 + 3);
  EXPECT_DOUBLE_EQ(chain.phases[0].transfers[0].bytes, 35 * s);
  EXPECT_DOUBLE_EQ(chain.phases[0].transfers[0].critical.sharedDevice, 4 * 32 * s);  // one GPU: every hop's copy
  Plan small;
  ASSERT_TRUE(planChain(Collective::Broadcast, Shape{5, 1}, 1024, small));
  EXPECT_DOUBLE_EQ(small.phases[0].transfers[0].steps, 4);  // one chunk: one message per hop
  // Across 4 nodes of 8: a ring's bytes leave each node once per rank's worth (through all NICs).
  Plan ring;
  planRing(Collective::AllReduce, Shape{32, 4}, s, ring);
  EXPECT_EQ(ring.phases[0].transferCount, 2);
  EXPECT_DOUBLE_EQ(ring.phases[0].transfers[1].bytes, 2 * 31.0 / 32 * s);
  EXPECT_DOUBLE_EQ(ring.phases[0].transfers[1].steps, 2.0 * 3);
  // Hierarchical: intra reduce-scatter, inter all-reduce of the shards, intra all-gather.
  Plan hier;
  planHier(Collective::AllReduce, Shape{32, 4}, s, hier);
  EXPECT_EQ(hier.phaseCount, 3);
  EXPECT_DOUBLE_EQ(hier.phases[1].transfers[0].bytes, 2 * 3.0 / 4 * s);
  EXPECT_EQ(hier.phases[1].transfers[0].link, LinkClass::Inter);
  // Nodes of 2 emulated on one host of 4 ranks (ccbench --ranks-per-node 2): a ring of 2 inside
  // each group (1 step each way), and the shards' ring across the 2 groups on the host's own
  // links, each rank carrying its own half: 2 steps of S/4 each.
  Plan emulated;
  planHier(Collective::AllReduce, Shape{4, 1, 1, 2}, s, emulated);
  ASSERT_EQ(emulated.phaseCount, 3);
  EXPECT_DOUBLE_EQ(emulated.phases[0].transfers[0].steps, 1.0);
  EXPECT_DOUBLE_EQ(emulated.phases[1].transfers[0].steps, 2.0);
  EXPECT_DOUBLE_EQ(emulated.phases[1].transfers[0].bytes, 2 * 0.5 * s / 2);
  EXPECT_EQ(emulated.phases[1].transfers[0].link, LinkClass::Intra);
  EXPECT_DOUBLE_EQ(emulated.phases[2].transfers[0].steps, 1.0);
  // Nodes of 1: the ring all-reduce across all 4, nothing inside a node.
  Plan single;
  planHier(Collective::AllReduce, Shape{4, 1, 1, 1}, s, single);
  EXPECT_DOUBLE_EQ(single.phases[0].transfers[0].steps, 0.0);
  EXPECT_DOUBLE_EQ(single.phases[1].transfers[0].steps, 2.0 * 3);
  EXPECT_DOUBLE_EQ(single.phases[1].transfers[0].bytes, 2 * 3.0 / 4 * s);
  // NVLS inside one node: about S through each port whatever n is.
  Plan nvls;
  planNvls(Collective::AllReduce, Shape{8, 1}, s, nvls);
  EXPECT_DOUBLE_EQ(nvls.phases[0].transfers[0].bytes, s);
  EXPECT_TRUE(nvls.phases[0].transfers[0].nvls);
}

TEST(Model, RingBusBandwidthIsTheLinkAtAnyRankCount) {
  // busbw normalises away n: a ring on NVSwitch reaches the same busbw at 2 and at 8 GPUs.
  const double at2 = busbwGBps("dgx-h100", {}, 2, "ring");
  const double at8 = busbwGBps("dgx-h100", {}, 8, "ring");
  EXPECT_NEAR(at2, at8, 0.01 * at8);
  EXPECT_NEAR(at8, 450 * 0.81, 0.01 * at8);
}

TEST(Model, AutoPicksTheCheapestAndSaysWhich) {
  Cluster cluster = loadCluster("dgx-a100");
  reshape(cluster, 16, std::nullopt);
  const Predictor predictor(cluster);
  std::set<std::string> picked;
  for (double bytes = 8; bytes <= 4 * kGiB; bytes *= 8) {
    const Prediction best = predictor.predict(Query{Collective::AllReduce, "auto", bytes, 128, 16, false, ""});
    picked.insert(best.algo);
    for (auto algo : predictor.candidates(Collective::AllReduce)) {
      const Prediction p = predictor.predict(Query{Collective::AllReduce, algo, bytes, 128, 16, false, ""});
      EXPECT_LE(best.timeUs, p.timeUs + 1e-9) << bytes << " bytes: auto picked " << best.algo << " but " << algo << " is faster";
    }
  }
  // Latency-optimal algorithms for small messages, bandwidth-optimal ones for large.
  EXPECT_GE(picked.size(), 2u);
  const std::string small = predictor.predict(Query{Collective::AllReduce, "auto", 8, 128, 16, false, ""}).algo;
  const std::string large = predictor.predict(Query{Collective::AllReduce, "auto", 4 * kGiB, 128, 16, false, ""}).algo;
  EXPECT_TRUE(small == "tree" || small == "rd") << small;
  EXPECT_TRUE(large == "ring" || large == "rhd" || large == "hier") << large;
}

// A library's own choice (`native`, or NCCL's tuner in a measured row) is priced among the
// algorithms that library has: on GPUs NCCL's, never recursive doubling, Rabenseifner, Bruck or
// cclab's hierarchical one, which the simulator's own `auto` may pick; on a CPU, all of them.
TEST(Model, ALibrarysChoiceIsAmongItsOwnAlgorithms) {
  Cluster cluster = loadCluster("dgx-a100");
  reshape(cluster, 64, std::nullopt);
  const Predictor predictor(cluster);
  const std::set<std::string> nccl{"ring", "chain", "tree", "nvls", "pairwise", "linear"};
  bool autoPickedOther = false;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                       Collective::AllToAll}) {
    for (double bytes = 1024; bytes <= kGiB; bytes *= 16) {
      const Prediction native = predictor.predict(Query{c, kLibraryCollective, bytes, 512, 64, false, ""});
      const Prediction tuner = predictor.predict(Query{c, kLibraryTunerChose, bytes, 512, 64, false, "nccl"});
      const Prediction own = predictor.predict(Query{c, kSimulatorPicks, bytes, 512, 64, false, ""});
      EXPECT_TRUE(nccl.count(native.algo)) << name(c) << " " << bytes << ": " << native.algo;
      EXPECT_EQ(tuner.algo, native.algo) << name(c) << " " << bytes;
      EXPECT_LE(own.timeUs, native.timeUs + 1e-9) << name(c) << " " << bytes;  // auto's candidates include NCCL's
      autoPickedOther = autoPickedOther || !nccl.count(own.algo);
    }
  }
  EXPECT_TRUE(autoPickedOther);  // else the two sets would not differ on this cluster
  // The 1 MiB all_gather of 512 GPUs: NCCL's ring, its 511 steps' latency; Rabenseifner's 9 would be 6x faster.
  const Prediction ring = predictor.predict(Query{Collective::AllGather, kLibraryCollective, 1 << 20, 512, 64, false, ""});
  EXPECT_EQ(ring.algo, "ring");
  EXPECT_GT(ring.timeUs, 3 * predictor.predict(Query{Collective::AllGather, "rhd", 1 << 20, 512, 64, false, ""}).timeUs);
  EXPECT_EQ(predictor.predict(Query{Collective::AllReduce, kLibraryCollective, 8, 512, 64, false, ""}).algo, "tree");
  EXPECT_EQ(predictor.libraryCandidates(Collective::AllGather), (std::vector<std::string_view>{"ring"}));
  // On shared memory an MPI library has them all.
  const Predictor cpu(loadCluster("cpu-2core-amd-epyc"));
  EXPECT_EQ(cpu.libraryCandidates(Collective::AllReduce), cpu.candidates(Collective::AllReduce));
}

// auto for cclab's implementation (--impl cclab) picks among cclab's own algorithms, each with
// its calibration: on the Zen 5 VM's shipped calibration the reduce is cclab's ring or its
// binomial tree, never the simulator's chain, which is the ring reduce's plan without its fit
// and was priced below cclab's pick at some sizes when auto offered it.
TEST(Model, AutoForCclabPicksAmongItsOwnAlgorithms) {
  const Predictor predictor(loadCluster(std::string(CCLAB_SOURCE_DIR) + "/models/calibrations/cpu-2core-amd-epyc-zen5-shm.json"));
  EXPECT_EQ(predictor.ownCandidates(Collective::Reduce), (std::vector<std::string_view>{"ring", "tree"}));
  int chainCheaper = 0;
  for (int n = 2; n <= 5; ++n) {
    for (double bytes = 8; bytes <= 16 * 1024 * 1024; bytes *= 4) {
      const Prediction own = predictor.predict(Query{Collective::Reduce, kSimulatorPicks, bytes, n, 1, false, "cclab"});
      EXPECT_TRUE(own.algo == "ring" || own.algo == "tree") << n << " ranks, " << bytes << ": " << own.algo;
      EXPECT_TRUE(own.calibrated) << n << " ranks, " << bytes;
      chainCheaper += predictor.predict(Query{Collective::Reduce, "chain", bytes, n, 1, false, "cclab"}).timeUs < own.timeUs;
    }
  }
  EXPECT_GT(chainCheaper, 0);  // what auto picked before it kept to cclab's own
}

TEST(Model, EveryAlgorithmCclabRunsIsOneTheSimulatorPrices) {
  // One registry of names: what ccbench --algo runs, ccsim --algo prices under the same name.
  const Predictor predictor(loadCluster("dgx-a100"));
  for (const Algorithm& algo : allAlgorithms()) {
    const SimAlgorithm* sim = findSimAlgorithm(algo.name);
    ASSERT_NE(sim, nullptr) << algo.name;
    for (int ranks : {2, 3, 8}) {
      Plan plan;
      EXPECT_TRUE(sim->plan(algo.collective, Shape{ranks, 1}, 1 << 20, plan)) << algo.name << " " << name(algo.collective);
      EXPECT_FALSE(plan.empty()) << algo.name << " " << name(algo.collective);
    }
    EXPECT_EQ(predictor.resolve(algo.collective, algo.name), algo.name);
  }
}

// The linear (one-shot) reduce_scatter: the ring's bytes and reductions, its n - 1 messages posted
// at once. Described, a rank still takes them one after another (as the linear alltoall's), so it
// prices as the ring; what it saves, no message waiting for a peer's step, only a fit shows: on
// the Zen 3 VM's calibration (2026-12-07 sweep, fitted on 2 and 4 ranks) it prices below the ring
// and recursive halving at 3 and 4 ranks for small buffers, as it measured (at 5 ranks too, but
// there the fit prices recursive halving's fold 22-28% fast and auto takes it: 11.6 us measured at
// 20 B against the linear's 8.4). NCCL's tuner never has it.
TEST(Model, TheLinearReduceScatterIsTheRingsBytesInOneStep) {
  const double bytes = 1 << 20;
  for (int n : {2, 3, 4, 5, 8}) {
    Plan linear, ring;
    ASSERT_TRUE(planLinear(Collective::ReduceScatter, Shape{n, 1}, bytes, linear));
    ASSERT_TRUE(planRing(Collective::ReduceScatter, Shape{n, 1}, bytes, ring));
    ASSERT_EQ(linear.phaseCount, 1);
    const Transfer& intra = linear.phases[0].transfers[0];
    EXPECT_DOUBLE_EQ(intra.bytes, ring.phases[0].transfers[0].bytes) << n;
    EXPECT_DOUBLE_EQ(intra.bytes, (n - 1.0) / n * bytes) << n;
    EXPECT_DOUBLE_EQ(intra.steps, n - 1.0) << n;
    EXPECT_DOUBLE_EQ(linear.phases[0].reduceBytes, ring.phases[0].reduceBytes) << n;
    EXPECT_TRUE(intra.allPairs) << n;
    EXPECT_FALSE(ring.phases[0].transfers[0].allPairs) << n;
  }
  const Predictor described(loadCluster("cpu-2core-amd-epyc"));
  const Predictor fitted(loadCluster(std::string(CCLAB_SOURCE_DIR) + "/models/calibrations/cpu-2core-amd-epyc-shm.json"));
  for (int n : {3, 4}) {
    auto us = [&](const Predictor& p, const char* algo, double size) {
      return p.predict(Query{Collective::ReduceScatter, algo, size, n, 1, false, kOwnBackend}).timeUs;
    };
    EXPECT_NEAR(us(described, "linear", 64 * n), us(described, "ring", 64 * n), 0.01 * us(described, "ring", 64 * n)) << n;
    EXPECT_LT(us(fitted, "linear", 64 * n), us(fitted, "ring", 64 * n)) << n;
    EXPECT_LT(us(fitted, "linear", 64 * n), us(fitted, "rhd", 64 * n)) << n;
    EXPECT_EQ(fitted.predict(Query{Collective::ReduceScatter, kSimulatorPicks, 64.0 * n, n, 1, false, kOwnBackend}).algo, "linear") << n;
  }
  Cluster dgx = loadCluster("dgx-a100");
  const Predictor gpus(dgx);
  const auto library = gpus.libraryCandidates(Collective::ReduceScatter);
  EXPECT_EQ(std::count(library.begin(), library.end(), "linear"), 0);
  const auto own = gpus.ownCandidates(Collective::ReduceScatter);
  EXPECT_EQ(std::count(own.begin(), own.end(), "linear"), 1);
}

// On the AMD EPYC VMs a rank that rd or rhd folds out still takes its turn on its core in each
// step of the power-of-two part (IntraNode::waitingRanksTakeTurns, docs/algorithm-validation.md,
// "Ranks folded out still take their turns"): at 3 ranks the busiest core schedules 2 ranks a
// step instead of 1, at 5 ranks 3 instead of 2, so each of the part's steps pays one more
// oversubscribed latency (rd: 1 step at 3 ranks, 2 at 5; rhd's all_reduce twice that). Powers of
// two, the Intel VM's description and GPUs are priced as before.
TEST(Model, RanksFoldedOutTakeTheirTurnsWhereTheHostSaysSo) {
  const std::string zen5 = std::string(CCLAB_SOURCE_DIR) + "/models/calibrations/cpu-2core-amd-epyc-zen5-shm.json";
  Cluster turns = loadCluster(zen5);
  ASSERT_TRUE(turns.intra.waitingRanksTakeTurns);
  EXPECT_TRUE(loadCluster("cpu-2core-amd-epyc").intra.waitingRanksTakeTurns);
  EXPECT_FALSE(loadCluster(std::string(CCLAB_SOURCE_DIR) + "/models/calibrations/cpu-2core-intel-xeon-shm.json").intra.waitingRanksTakeTurns);
  Cluster plain = turns;
  plain.intra.waitingRanksTakeTurns = false;
  const Predictor withTurns(turns), without(plain);
  auto us = [](const Predictor& p, Collective c, const char* algo, int n) {
    return p.predict(Query{c, algo, 64.0 * n, n, 1, false, kOwnBackend}).timeUs;
  };
  for (auto [c, algo] : {std::pair{Collective::AllReduce, "rd"}, std::pair{Collective::AllReduce, "rhd"},
                         std::pair{Collective::ReduceScatter, "rhd"}, std::pair{Collective::AllGather, "rhd"}}) {
    for (int n : {2, 4}) EXPECT_DOUBLE_EQ(us(withTurns, c, algo, n), us(without, c, algo, n)) << algo << " " << n;
    const double extra3 = us(withTurns, c, algo, 3) - us(without, c, algo, 3);
    const double extra5 = us(withTurns, c, algo, 5) - us(without, c, algo, 5);
    EXPECT_GT(extra3, 1.0) << algo;  // an oversubscribed latency is microseconds on these VMs
    EXPECT_NEAR(extra5, 2 * extra3, 1e-9 * extra5) << algo;  // twice the steps at 5 ranks, one rank more a core each
    // Algorithms without a fold are priced as before.
    EXPECT_DOUBLE_EQ(us(withTurns, c, "ring", 5), us(without, c, "ring", 5));
  }
  // What it changes for the tuner: the 5-rank reduce_scatter of small messages, where rhd measured
  // 27-28 us and the one-shot one 18 on this VM (algorithms-shm-2026-12-07), goes to the one-shot one.
  auto pick = [](const Predictor& p) {
    return p.predict(Query{Collective::ReduceScatter, kSimulatorPicks, 100.0, 5, 1, false, kOwnBackend}).algo;
  };
  EXPECT_EQ(pick(without), "rhd");
  EXPECT_EQ(pick(withTurns), "linear");
  // Not on a GPU: its ranks do not share cores.
  Cluster dgx = loadCluster("dgx-a100");
  const Predictor gpus(dgx);
  dgx.intra.waitingRanksTakeTurns = true;
  const Predictor gpusWithTurns(dgx);
  EXPECT_DOUBLE_EQ(us(gpus, Collective::AllReduce, "rd", 5), us(gpusWithTurns, Collective::AllReduce, "rd", 5));
}

TEST(Model, AlgorithmNamesMatchCclabAndErrorsAreClear) {
  const Predictor predictor(loadCluster("dgx-a100"));
  EXPECT_EQ(predictor.resolve(Collective::Broadcast, "ring"), "chain");  // ccbench's ring family
  EXPECT_EQ(predictor.resolve(Collective::AllToAll, "ring"), "pairwise");
  EXPECT_EQ(predictor.resolve(Collective::Reduce, "ring"), "ring");
  EXPECT_EQ(predictor.resolve(Collective::Gather, "ring"), "linear");
  EXPECT_THROW(predictor.resolve(Collective::AllReduce, "magic"), InputError);
  EXPECT_THROW(predictor.resolve(Collective::Broadcast, "bruck"), InputError);
  try {
    predictor.resolve(Collective::AllReduce, "nvls");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs NVLink SHARP"), std::string::npos);
  }
  EXPECT_THROW(predictor.predict(Query{Collective::AllReduce, "ring", 8, 4, 8, false, ""}), InputError);  // nodes > ranks
}

TEST(Model, EveryCollectiveAtEveryScale) {
  for (const auto& preset : presetNames()) {
    Cluster cluster = loadCluster(preset);
    if (cluster.nics.perNode > 0) reshape(cluster, 16384 / cluster.gpusPerNode, std::nullopt);
    const Predictor predictor(cluster);
    for (Collective c : allCollectives()) {
      double previous = 0;
      for (double bytes = 1024; bytes <= kGiB; bytes *= 32) {
        const Prediction p = predictor.predict(Query{c, "auto", bytes, cluster.gpus(), cluster.nodes, false, ""});
        EXPECT_TRUE(std::isfinite(p.timeUs) && p.timeUs > 0) << preset << " " << name(c);
        EXPECT_GE(p.timeUs, previous) << preset << " " << name(c) << " " << bytes;  // more bytes never cost less
        previous = p.timeUs;
      }
    }
  }
}

// One GPU shared by 5 processes (the algorithm sweeps): a binomial broadcast's 3 rounds copy
// 1, 2 and 1 buffers, so the device carries 4 of them, where with a GPU per process the critical
// path carries one per round (3). Priced per byte, the difference between two sizes.
TEST(Model, ASharedGpuCarriesEveryCopyOfABinomialBroadcast) {
  const Pricing pricing = basePricing(loadCluster("dgx-h100"));
  const double s = 64.0 * 1024 * 1024;
  auto usPerBuffer = [&](const Shape& shape) {
    Plan one, two;
    EXPECT_TRUE(planTree(Collective::Broadcast, shape, s, one));
    EXPECT_TRUE(planTree(Collective::Broadcast, shape, 2 * s, two));
    return priceUs(two, shape, pricing) - priceUs(one, shape, pricing);
  };
  const double buffer = s / (pricing.intra.bandwidthGBps * 1e3);  // us for one buffer at the link's rate
  EXPECT_NEAR(usPerBuffer(Shape{5, 1, 5}), 4 * buffer, 1e-6 * buffer);
  EXPECT_NEAR(usPerBuffer(Shape{5, 1, 1}), 3 * buffer, 1e-6 * buffer);
  // The binomial reduce alike: 4 buffers sent and reduced on the one GPU.
  Plan reduce;
  ASSERT_TRUE(planTree(Collective::Reduce, Shape{5, 1, 5}, s, reduce));
  EXPECT_DOUBLE_EQ(reduce.phases[0].transfers[0].critical.sharedDevice, 4 * s);
}

TEST(Model, OneRankCopiesOutOfPlaceAndNothingInPlace) {
  const Predictor predictor(loadCluster("dgx-h100"));
  const Prediction out = predictor.predict(Query{Collective::AllReduce, "ring", kGiB, 1, 1, false, ""});
  const Prediction in = predictor.predict(Query{Collective::AllReduce, "ring", kGiB, 1, 1, true, ""});
  EXPECT_NEAR(out.timeUs, 6.0 + kGiB / (3350e9 / 2) * 1e6, 1.0);  // launch + a copy at half the HBM rate
  EXPECT_DOUBLE_EQ(in.timeUs, 6.0);
}

// Bruck's partners are r + 2^k mod n with ranks numbered node by node, so on 2 nodes of 8 the
// last 1, 2, 4 and then all 8 ranks of each node send their half across the network: every step
// waits for it, and the NICs carry 15 halves, not the 8 of the last step alone.
TEST(Model, BruckAcrossNodesSendsEveryHalfWhosePartnerIsElsewhere) {
  const double s = 1 << 20;
  Plan bruck;
  ASSERT_TRUE(planBruck(Collective::AllToAll, Shape{16, 2}, s, bruck));
  ASSERT_EQ(bruck.phaseCount, 2);
  const Phase& exchange = bruck.phases[1];
  ASSERT_EQ(exchange.transferCount, 2);
  EXPECT_EQ(exchange.transfers[0].link, LinkClass::Intra);
  EXPECT_DOUBLE_EQ(exchange.transfers[0].steps, 0);
  EXPECT_DOUBLE_EQ(exchange.transfers[0].bytes, 3 * s / 2);  // a node's first rank: partners 1, 2, 4 on its node
  EXPECT_EQ(exchange.transfers[1].link, LinkClass::Inter);
  EXPECT_DOUBLE_EQ(exchange.transfers[1].steps, 4);
  EXPECT_DOUBLE_EQ(exchange.transfers[1].bytes, (1 + 2 + 4 + 8) * s / 2);
  // 3 nodes of 5: at least 5 ranks x 10/15 of S must leave each node; each step sends the 7 of
  // the 15 blocks whose index (1..14) has its bit set, from 1, 2, 4 and 5 ranks of each node.
  Plan odd;
  ASSERT_TRUE(planBruck(Collective::AllToAll, Shape{15, 3}, s, odd));
  EXPECT_DOUBLE_EQ(odd.phases[1].transfers[1].bytes, (1 + 2 + 4 + 5) * 7 * s / 15);
  // One node: every step stays on it, as before.
  Plan one;
  ASSERT_TRUE(planBruck(Collective::AllToAll, Shape{8, 1}, s, one));
  EXPECT_EQ(one.phases[1].transferCount, 1);
  EXPECT_DOUBLE_EQ(one.phases[1].transfers[0].steps, 3);
  EXPECT_DOUBLE_EQ(one.phases[1].transfers[0].bytes, 3 * s / 2);
}

// Bruck's alltoall sends, in the step at distance d, the blocks whose index has bit d set, as
// collectives/algorithms/bruck_alltoall.cc does: half the buffer at a power of two, less at other
// rank counts (3 ranks: block 1, then block 2, 2/3 of S in all; 5: blocks 1 and 3, 2 and 3, then 4:
// S, not the 3 halves of ceil(log2 5) steps).
TEST(Model, BruckAlltoallSendsTheBlocksWithTheStepsBitSet) {
  const double s = 1 << 20;
  const std::pair<int, int> blocksSent[] = {{2, 1}, {3, 2}, {4, 4}, {5, 5}, {6, 7}, {7, 9}, {8, 12}};  // ranks, blocks
  for (const auto& [n, blocks] : blocksSent) {
    Plan bruck;
    ASSERT_TRUE(planBruck(Collective::AllToAll, Shape{n, 1}, s, bruck));
    EXPECT_DOUBLE_EQ(bruck.phases[1].transfers[0].bytes, blocks * s / n) << n << " ranks";
  }
}

// The fixed arrays of a plan throw on overflow instead of writing past their end.
TEST(Model, PlansThrowWhenAPhaseOrTheirPhasesAreFull) {
  Plan plan;
  Phase& phase = plan.addPhase();
  phase.add({LinkClass::Intra, 1, 1, 1}).add({LinkClass::Inter, 1, 1, 1});
  phase.add({LinkClass::Local, 0, 0, 1});  // moves nothing: not added, so no overflow
  EXPECT_EQ(phase.transferCount, 2);
  try {
    phase.add({LinkClass::Local, 0, 1, 1});
    FAIL() << "a third transfer was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "a plan phase holds at most 2 transfers");
  }
  EXPECT_EQ(phase.transferCount, 2);
  plan.addPhase();
  plan.addPhase();
  try {
    plan.addPhase();
    FAIL() << "a fourth phase was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "a plan holds at most 3 phases");
  }
  EXPECT_EQ(plan.phaseCount, 3);
}

}  // namespace
}  // namespace cclab::sim
