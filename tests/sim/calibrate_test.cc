// Calibration recovers the parameters it should from rows the model itself prices on a cluster
// whose numbers the test knows, term by term; it reads nccl-tests logs, takes a size measured in
// several launches as its fastest, and says when rows are too few. Its check on real measurements
// is calibrate_sweeps_test.cc.

#include "sim/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <utility>

#include <gtest/gtest.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/context.h"
#include "collectives/errors.h"
#include "sim/predictor.h"
#include "sim/validate.h"

namespace cclab::sim {
namespace {

// The AMD VM's shared memory with every message through the slots (no single copy): what the
// pricing tests below build on, whatever threshold the preset ships (64 KiB since 2026-12-04).
Cluster amdThroughTheSlots() {
  Cluster c = loadCluster("cpu-2core-amd-epyc");
  c.intra.singleCopyBytes = c.intra.singleCopyRootedBytes = 0;
  return c;
}

// Rows "measured" by the model itself on a cluster whose numbers the test knows; with
// `sharedGpu`, every run's processes share one GPU (Shape::perDevice = ranks).
// `backend` kOwnBackend: rows of cclab's implementation (its device copies priced), in and out of
// place.
std::vector<Measurement> synthetic(const Cluster& truth, Collective c, const std::string& algo, std::vector<int> ranks,
                                   bool sharedGpu = false, std::string_view backend = "synthetic") {
  std::vector<Measurement> rows;
  for (int n : ranks) {
    Cluster shaped = truth;
    reshape(shaped, 1, n);
    const Predictor predictor(shaped);
    for (double bytes = 1024; bytes <= 256.0 * 1024 * 1024; bytes *= 4) {
      for (bool inPlace : {false, true}) {
        if (inPlace && backend != kOwnBackend) continue;
        Measurement m;
        m.row.backend = std::string(backend);
        m.row.algo = algo;
        m.row.collective = c;
        m.row.nranks = n;
        m.row.sizeBytes = static_cast<std::uint64_t>(bytes);
        m.row.inPlace = inPlace;
        m.perDevice = sharedGpu ? n : 1;
        m.row.timeUs = predictor.predict(Query{c, algo, bytes, n, 1, inPlace, backend, m.perDevice}).timeUs;
        rows.push_back(m);
      }
    }
  }
  return rows;
}

// Ring all_gather rows at 2, 4 and 8 GPUs on a port fabric of 2.5 us and 300 GB/s.
std::vector<Measurement> portFabricRows() {
  Cluster truth = loadCluster("dgx-h100");
  truth.intra.latencyUs = 2.5;
  truth.intra.bandwidthGBps = 300;
  truth.intra.efficiency = 1;
  return synthetic(truth, Collective::AllGather, "ring", {2, 4, 8});
}

TEST(Calibrate, RecoversTheParametersOfAPortFabric) {
  const auto rows = portFabricRows();
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_NEAR(report.groups[0].latencyUs, 2.5, 1e-6);
  EXPECT_NEAR(report.groups[0].bandwidthGBps, 300, 1e-6);
  EXPECT_NEAR(report.groups[0].fit.r2, 1.0, 1e-9);
  EXPECT_LT(report.groups[0].fit.maxAbsErrorPct, 1e-6);
  // The pooled refit writes the link into the cluster description itself.
  EXPECT_NEAR(report.fitted.intra.bandwidthGBps, 300, 1e-6);
}

// Rooted collectives fit a per-call term (Calibration::callOverheadUs): timed back to back, their
// calls overlap, so part of a call's time does not grow with the rounds. Rows made with 15 us more
// per call than the base cluster's launch: the binomial broadcast recovers it from 2 and 4 ranks
// and predicts 3 and 5 exactly; without it the same entry misses; an all_gather (no root) gets no
// such term.
TEST(Calibrate, RootedCollectivesFitACallOverhead) {
  Cluster truth = loadCluster("dgx-h100");
  truth.intra.latencyUs = 4;
  truth.intra.bandwidthGBps = 400;
  truth.intra.efficiency = 1;
  truth.gpu.launchLatencyUs += 15;
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), synthetic(truth, Collective::Broadcast, "tree", {2, 4}));
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_NEAR(report.groups[0].callOverheadUs, 15, 1e-6);
  EXPECT_NEAR(report.groups[0].latencyUs, 4, 1e-6);
  const ValidationReport heldOut = validate(report.fitted, synthetic(truth, Collective::Broadcast, "tree", {3, 5}));
  EXPECT_LT(heldOut.ranges[5].maxAbsErrorPct, 1e-6);
  Cluster without = report.fitted;
  without.calibrations[0].callOverheadUs = 0;
  EXPECT_GT(validate(without, synthetic(truth, Collective::Broadcast, "tree", {3, 5})).ranges[0].medianAbsErrorPct, 10.0);
  const CalibrationReport unrooted = calibrate(loadCluster("dgx-h100"), synthetic(truth, Collective::AllGather, "ring", {2, 4}));
  ASSERT_EQ(unrooted.groups.size(), 1u);
  EXPECT_EQ(unrooted.groups[0].callOverheadUs, 0);
}

// cclab's ring all_gather copies its own block into its output out of place, not in place
// (InputCopies). Rows made with a copy of known fixed cost and rate, on a GPU the processes share:
// the pairs in and out of place recover both (the copy's bytes counted once per process), and the
// out-of-place fit, the copies taken off, predicts 3 and 5 processes exactly. The same fit with
// the copy's fixed cost dropped misses: it is not spread over the ring's steps.
TEST(Calibrate, DeviceCopiesFitFromTheSameRowsInAndOutOfPlace) {
  Cluster truth = loadCluster("dgx-h100");
  truth.intra.latencyUs = 10;
  truth.intra.oversubscribedLatencyUs = 2;
  truth.intra.bandwidthGBps = 600;
  truth.intra.efficiency = 1;
  truth.gpu.copyLatencyUs = 6;
  truth.gpu.memoryBandwidthGBps = 3000;  // copies at 1,500 GB/s
  const auto fitRows = synthetic(truth, Collective::AllGather, "ring", {2, 4}, true, kOwnBackend);
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), fitRows);
  EXPECT_EQ(report.copyFit.pairs, 20);  // 10 sizes at 2 and 4 processes
  EXPECT_NEAR(report.copyFit.latencyUs, 6, 1e-6);
  EXPECT_NEAR(report.copyFit.copyGBps, 1500, 1e-3);
  ASSERT_EQ(report.groups.size(), 2u);  // in and out of place
  EXPECT_NEAR(report.groups[0].latencyUs, report.groups[1].latencyUs, 1e-6);
  const auto heldOutRows = synthetic(truth, Collective::AllGather, "ring", {3, 5}, true, kOwnBackend);
  EXPECT_LT(validate(report.fitted, heldOutRows).ranges[5].maxAbsErrorPct, 1e-6);
  Cluster noCopyCost = report.fitted;
  noCopyCost.gpu.copyLatencyUs = 0;
  EXPECT_GT(validate(noCopyCost, heldOutRows).ranges[0].maxAbsErrorPct, 10.0);
  // A library's rows (no copies of cclab's) fit none.
  EXPECT_EQ(calibrate(loadCluster("dgx-h100"), synthetic(truth, Collective::AllGather, "ring", {2, 4}, true)).copyFit.pairs, 0);
}

TEST(Calibrate, RecoversSharedMemoryCachesOversubscriptionAndRendezvous) {
  Cluster truth = amdThroughTheSlots();
  ASSERT_EQ(truth.intra.eagerLimitBytes, 4096);
  truth.intra.latencyUs = 0.8;
  truth.intra.oversubscribedLatencyUs = 7;
  truth.intra.rendezvousLatencyUs = 6;
  truth.intra.bandwidthGBps = 5;
  truth.intra.efficiency = 1;
  truth.intra.caches[0].bandwidthGBps = 12;
  truth.intra.caches[1].bandwidthGBps = 8;
  // all_gather: no reduction term to overlap, so time is exactly linear in the fitted terms.
  const auto rows = synthetic(truth, Collective::AllGather, "ring", {2, 3, 4, 5});
  const CalibrationReport report = calibrate(amdThroughTheSlots(), rows);
  ASSERT_EQ(report.groups.size(), 1u);
  const Calibration& g = report.groups[0];
  EXPECT_NEAR(g.latencyUs, 0.8, 1e-6);
  EXPECT_NEAR(g.oversubscribedLatencyUs, 7, 1e-6);
  EXPECT_NEAR(g.rendezvousLatencyUs, 6, 1e-6);
  EXPECT_NEAR(g.bandwidthGBps, 5, 1e-6);
  ASSERT_EQ(g.cacheBandwidthGBps.size(), 2u);
  EXPECT_NEAR(g.cacheBandwidthGBps[0], 12, 1e-4);
  EXPECT_NEAR(g.cacheBandwidthGBps[1], 8, 1e-4);
}

// cclab's ring all_reduce, ring all_gather and pairwise alltoall at 2 and 4 ranks, in and out of
// place: rows whose working sets cross the caches at different sizes.
std::vector<Measurement> cacheRows(const Cluster& truth) {
  std::vector<Measurement> rows = synthetic(truth, Collective::AllReduce, "ring", {2, 4}, false, kOwnBackend);
  for (const auto& more : {synthetic(truth, Collective::AllGather, "ring", {2, 4}, false, kOwnBackend),
                           synthetic(truth, Collective::AllToAll, "pairwise", {2, 4}, false, kOwnBackend)}) {
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

// This machine's description with its L2 and L3 holding these many bytes.
Cluster cachesAt(double l2Bytes, double l3Bytes) {
  Cluster c = amdThroughTheSlots();
  c.intra.caches.at(0).bytes = l2Bytes;
  c.intra.caches.at(1).bytes = l3Bytes;
  return c;
}

// A cache holds less of a rank's buffers than its nominal size (the transport's slots, other
// data, a working set near the capacity already missing): rows measured on caches of 256 KiB and
// 12 MiB, calibrated from a description that says 1 MiB and 32 MiB, give those capacities back
// and fit exactly; kept at the described sizes (--cache-capacity described), they cannot.
TEST(Calibrate, FitsTheCapacityTheCachesBehaveAs) {
  const Cluster described = amdThroughTheSlots();
  ASSERT_EQ(described.intra.caches.size(), 2u);
  ASSERT_EQ(described.intra.caches[0].bytes, 1024.0 * 1024);
  ASSERT_EQ(described.intra.caches[1].bytes, 32.0 * 1024 * 1024);
  const Cluster truth = cachesAt(256.0 * 1024, 12.0 * 1024 * 1024);
  const std::vector<Measurement> rows = cacheRows(truth);
  const CalibrationReport fitted = calibrate(described, rows);
  ASSERT_EQ(fitted.cacheFits.size(), 2u);
  EXPECT_EQ(fitted.cacheFits[0].describedBytes, 1024.0 * 1024);
  EXPECT_EQ(fitted.cacheFits[0].fittedBytes, 256.0 * 1024);
  EXPECT_EQ(fitted.cacheFits[1].fittedBytes, 12.0 * 1024 * 1024);
  EXPECT_EQ(fitted.fitted.intra.caches[1].bytes, 12.0 * 1024 * 1024);
  EXPECT_LT(fitted.overall.maxAbsErrorPct, 0.01);
  EXPECT_GT(fitted.describedCachesError, 100 * fitted.relativeSquaredError);
  // Written and read back, and held-out rank counts predicted exactly.
  const Cluster back = clusterFromJson(toJson(fitted.fitted), "test");
  EXPECT_EQ(back.intra.caches[0].bytes, 256.0 * 1024);
  const ValidationReport heldOut = validate(back, synthetic(truth, Collective::AllReduce, "ring", {3, 5}, false, kOwnBackend));
  EXPECT_LT(heldOut.ranges.back().maxAbsErrorPct, 0.01);

  const CalibrationReport kept = calibrate(described, rows, false);
  EXPECT_TRUE(kept.cacheFits.empty());
  EXPECT_EQ(kept.fitted.intra.caches[1].bytes, 32.0 * 1024 * 1024);
  EXPECT_GT(kept.overall.maxAbsErrorPct, 10);
}

// A level's best capacity depends on the others': rows measured on caches of 128 KiB and 2 MiB,
// searched outermost first, take the L3 at 4 MiB while the L2 is still at its described 1 MiB,
// then the L2 at 896 KiB; a second pass over the levels finds both exactly.
TEST(Calibrate, FitsTheCapacitiesInPassesUntilNoneChanges) {
  const CalibrationReport fitted = calibrate(amdThroughTheSlots(), cacheRows(cachesAt(128.0 * 1024, 2.0 * 1024 * 1024)));
  ASSERT_EQ(fitted.cacheFits.size(), 2u);
  EXPECT_EQ(fitted.cacheFits[0].fittedBytes, 128.0 * 1024);
  EXPECT_EQ(fitted.cacheFits[1].fittedBytes, 2.0 * 1024 * 1024);
  EXPECT_LT(fitted.overall.maxAbsErrorPct, 0.01);
}

// Oversubscribed ranks on shared memory: each step pays the oversubscribed latency once per rank
// of the busiest core among those the step keeps busy (Transfer::copiers), since that core runs
// them one after another. The ring keeps every rank busy (3 ranks on 2 cores: 2 on a core; 5:
// 3); recursive doubling at 3 ranks folds one pair and exchanges between 2 (1 on a core), at 5
// exchanges among 4 (2 on a core) between the folds. On a host whose ranks folded out take their
// turns on their cores (IntraNode::waitingRanksTakeTurns, the AMD EPYC VMs' descriptions), the
// exchanges between the folds schedule those too: 2 a core at 3 ranks, 3 at 5.
TEST(Calibrate, OversubscribedStepsPayPerRankOfTheBusiestCore) {
  Cluster c = amdThroughTheSlots();
  c.intra.latencyUs = 0.5;
  c.intra.oversubscribedLatencyUs = 1;
  c.intra.rendezvousLatencyUs = 0;
  auto smallUs = [&](Collective coll, const char* algo, int n) {
    Cluster shaped = c;
    reshape(shaped, 1, n);
    return Predictor(shaped).predict(Query{coll, algo, 8, n, 1, false, "synthetic", 1}).timeUs;
  };
  EXPECT_NEAR(smallUs(Collective::AllGather, "ring", 2), 1 * 0.5, 0.05);            // not oversubscribed
  EXPECT_NEAR(smallUs(Collective::AllGather, "ring", 3), 2 * (0.5 + 2 * 1), 0.05);  // n - 1 steps
  EXPECT_NEAR(smallUs(Collective::AllGather, "ring", 5), 4 * (0.5 + 3 * 1), 0.05);
  ASSERT_TRUE(c.intra.waitingRanksTakeTurns);
  EXPECT_NEAR(smallUs(Collective::AllReduce, "rd", 3), 2 * (0.5 + 1 * 1) + 1 * (0.5 + 2 * 1), 0.05);
  EXPECT_NEAR(smallUs(Collective::AllReduce, "rd", 5), 2 * (0.5 + 1 * 1) + 2 * (0.5 + 3 * 1), 0.05);
  c.intra.waitingRanksTakeTurns = false;
  EXPECT_NEAR(smallUs(Collective::AllReduce, "rd", 3), 3 * (0.5 + 1 * 1), 0.05);
  EXPECT_NEAR(smallUs(Collective::AllReduce, "rd", 5), 2 * (0.5 + 1 * 1) + 2 * (0.5 + 2 * 1), 0.05);
}

// cclab's shared-memory transport packs messages of 24 bytes and fewer a few to a cache line
// (IntraNode::packedMaxBytes): on more ranks than cores a receiver scheduled in after a wait takes
// all its sender packed meanwhile, so such a step pays the packed oversubscribed latency instead
// of the other. Ring all_gather at 3 ranks: 24 B is 8-byte blocks (packed), 96 B 32-byte ones.
// Only cclab's rows pack (another implementation, or a description without packing, prices both
// alike); ccsim calibrate takes the size from the runs and recovers both latencies from 2 and 4
// ranks, which then price 3 and 5 exactly.
TEST(Calibrate, PackedStepsPayTheirOwnOversubscribedLatency) {
  Cluster c = amdThroughTheSlots();
  ASSERT_EQ(c.intra.packedMaxBytes, 24);
  c.intra.latencyUs = 0.5;
  c.intra.oversubscribedLatencyUs = 1;
  c.intra.packedOversubscribedLatencyUs = 0.25;
  c.intra.rendezvousLatencyUs = 0;
  auto us = [](const Cluster& cluster, double bytes, int n, std::string_view impl) {
    Cluster shaped = cluster;
    reshape(shaped, 1, n);
    return Predictor(shaped).predict(Query{Collective::AllGather, "ring", bytes, n, 1, false, impl, 1}).timeUs;
  };
  EXPECT_NEAR(us(c, 24, 3, kOwnBackend), 2 * (0.5 + 2 * 0.25), 0.05);
  EXPECT_NEAR(us(c, 96, 3, kOwnBackend), 2 * (0.5 + 2 * 1), 0.05);
  EXPECT_NEAR(us(c, 16, 2, kOwnBackend), 0.5, 0.05);  // not oversubscribed: no difference
  EXPECT_NEAR(us(c, 24, 3, "mpi"), us(c, 96, 3, "mpi"), 0.05);
  Cluster unpacked = c;
  unpacked.intra.packedMaxBytes = 0;
  EXPECT_NEAR(us(unpacked, 24, 3, kOwnBackend), 2 * (0.5 + 2 * 1), 0.05);
  // Written and read back; absent, the packed latency is the other one.
  const Cluster back = clusterFromJson(toJson(c), "test");
  EXPECT_EQ(back.intra.packedMaxBytes, 24);
  EXPECT_EQ(back.intra.packedOversubscribedLatencyUs, 0.25);
  Cluster described = c;
  described.intra.packedOversubscribedLatencyUs = -1;
  EXPECT_NEAR(us(described, 24, 3, kOwnBackend), us(described, 96, 3, kOwnBackend), 0.05);

  // cclab's rows at 2-5 ranks, 8 B to 1 KiB a block ("measured" on c), recorded as packed up to 24 B.
  auto rows = [&](std::vector<int> ranks, double packedBytes) {
    std::vector<Measurement> out;
    for (int n : ranks) {
      for (double bytes = 8; bytes <= 1024; bytes *= 2) {
        Measurement m;
        m.row.backend = std::string(kOwnBackend);
        m.row.algo = "ring";
        m.row.collective = Collective::AllGather;
        m.row.nranks = n;
        m.row.sizeBytes = static_cast<std::uint64_t>(bytes * n);
        m.row.timeUs = us(c, bytes * n, n, kOwnBackend);
        m.copiesPerMessage = c.intra.copiesPerMessage;
        m.packedBytes = packedBytes;
        out.push_back(m);
      }
    }
    return out;
  };
  Cluster base = amdThroughTheSlots();
  base.intra.packedMaxBytes = 0;  // the runs say
  const CalibrationReport report = calibrate(base, rows({2, 4}, 24));
  EXPECT_EQ(report.fitted.intra.packedMaxBytes, 24);
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_NEAR(report.groups[0].latencyUs, 0.5, 1e-6);
  EXPECT_NEAR(report.groups[0].oversubscribedLatencyUs, 1, 1e-6);
  EXPECT_NEAR(report.groups[0].packedOversubscribedLatencyUs, 0.25, 1e-6);
  EXPECT_LT(validate(report.fitted, rows({3, 5}, 24)).ranges[5].maxAbsErrorPct, 1e-6);
  // Runs that did not pack leave nothing packed; runs that did not say, the description's.
  EXPECT_EQ(calibrate(c, rows({2, 4}, 0)).fitted.intra.packedMaxBytes, 0);
  EXPECT_EQ(calibrate(c, rows({2, 4}, -1)).fitted.intra.packedMaxBytes, 24);
}

// A fold into the power of two is one-way: on a transport of two copies a message (cclab's shared
// memory: the sender's core copies into the slots while the receiver's copies out) each core does
// half of a swap's copying; with one copy (the receiver's, through CMA) it does all of it. So rd
// all_reduce of 16 MiB at 3 ranks is cheaper with two copies a message, at 4 ranks (no fold) the
// same. ccsim calibrate takes the copies from the runs (Measurement::copiesPerMessage) when they
// agree.
TEST(Calibrate, OneWayFoldsCostEachCoreHalfOnATransportOfTwoCopies) {
  Cluster one = amdThroughTheSlots();
  ASSERT_EQ(one.intra.copiesPerMessage, 1);
  Cluster two = one;
  two.intra.copiesPerMessage = 2;
  auto largeUs = [](Cluster c, int n) {
    reshape(c, 1, n);
    return Predictor(c).predict(Query{Collective::AllReduce, "rd", 16.0 * 1024 * 1024, n, 1, false, "synthetic", 1}).timeUs;
  };
  EXPECT_LT(largeUs(two, 3), 0.9 * largeUs(one, 3));
  EXPECT_LT(largeUs(two, 5), 0.95 * largeUs(one, 5));
  EXPECT_DOUBLE_EQ(largeUs(two, 4), largeUs(one, 4));
  EXPECT_EQ(clusterFromJson(toJson(two), "test").intra.copiesPerMessage, 2);  // written and read back

  std::vector<Measurement> rows = synthetic(two, Collective::AllReduce, "rd", {2, 4});
  EXPECT_EQ(calibrate(one, rows).fitted.intra.copiesPerMessage, 1);  // the runs did not say
  for (Measurement& m : rows) m.copiesPerMessage = 2;
  EXPECT_EQ(calibrate(one, rows).fitted.intra.copiesPerMessage, 2);
  rows.front().copiesPerMessage = 1;  // runs over both transports: the description's own
  EXPECT_EQ(calibrate(one, rows).fitted.intra.copiesPerMessage, 1);
}

// cclab's shared memory reads messages from a threshold up straight out of the sender's memory:
// those take one copy, the rest two. The simulator prices each transfer by its message size
// (bytes over steps), and ccsim calibrate takes the threshold from the runs it fits, not from the
// description (the runs may have been made with another one).
// The AMD VM's shared memory with `copies` copies a message, and a call's time on 3 ranks there.
Cluster withCopies(int copies) {
  Cluster c = amdThroughTheSlots();
  c.intra.copiesPerMessage = copies;
  return c;
}
double usOn3Ranks(Cluster c, Collective collective, std::string_view algo, double bytes) {
  reshape(c, 1, 3);
  return Predictor(c).predict(Query{collective, algo, bytes, 3, 1, false, "synthetic", 1}).timeUs;
}

TEST(Calibrate, MessagesFromTheSingleCopyThresholdUpTakeOneCopy) {
  const Cluster two = withCopies(2), one = withCopies(1);
  Cluster mixed = two;
  mixed.intra.singleCopyBytes = 512 * 1024;
  auto us = [](const Cluster& c, double bytes) { return usOn3Ranks(c, Collective::AllReduce, "rd", bytes); };
  // rd at 3 ranks folds the whole buffer one way: 16 MiB messages take one copy, 64 KiB ones two.
  EXPECT_DOUBLE_EQ(us(mixed, 16.0 * 1024 * 1024), us(one, 16.0 * 1024 * 1024));
  EXPECT_LT(us(two, 16.0 * 1024 * 1024), 0.9 * us(mixed, 16.0 * 1024 * 1024));
  EXPECT_DOUBLE_EQ(us(mixed, 64.0 * 1024), us(two, 64.0 * 1024));
  EXPECT_EQ(clusterFromJson(toJson(mixed), "test").intra.singleCopyBytes, 512 * 1024);  // written and read back

  Cluster described = two;
  described.intra.singleCopyBytes = 4096;
  std::vector<Measurement> rows = synthetic(mixed, Collective::AllReduce, "rd", {2, 4});
  for (Measurement& m : rows) m.copiesPerMessage = 2;  // ran through the slots only
  EXPECT_EQ(calibrate(described, rows).fitted.intra.singleCopyBytes, 0);
  for (Measurement& m : rows) m.singleCopyBytes = 512 * 1024;
  EXPECT_EQ(calibrate(described, rows).fitted.intra.singleCopyBytes, 512 * 1024);
  rows.front().singleCopyBytes = 1024;  // runs with two thresholds: the description's own
  EXPECT_EQ(calibrate(described, rows).fitted.intra.singleCopyBytes, 4096);
}

// With one copy a message, the bytes a rank reads out of data written in the same call (what it
// forwards or reduced, not an input the benchmark's loop leaves unchanged: docs/simulator.md) pay
// a rate of their own on top of their copy. The ring all_gather's step 0 sends the input and the
// later steps forward: none of those bytes at 2 ranks, two thirds at 4. Rows made with a known
// rate give it back; through the slots, or with no rate fitted, nothing changes.
TEST(Calibrate, BytesOutOfTheCallsOwnDataPayTheirOwnFittedRate) {
  Cluster truth = withCopies(1);
  Calibration entry;
  entry.implementation = "synthetic";
  entry.collective = Collective::AllGather;
  entry.algo = "ring";
  entry.latencyUs = 0.5;
  entry.oversubscribedLatencyUs = 2;
  entry.bandwidthGBps = 6;
  entry.cacheBandwidthGBps = {40, 20};
  entry.freshBandwidthGBps = 25;
  truth.calibrations.push_back(entry);
  auto us = [](Cluster c, int ranks, double bytes) {
    reshape(c, 1, ranks);
    return Predictor(c).predict(Query{Collective::AllGather, "ring", bytes, ranks, 1, false, "synthetic", 1}).timeUs;
  };
  Cluster noRate = truth;
  noRate.calibrations.front().freshBandwidthGBps = 0;
  Cluster slots = truth;
  slots.intra.copiesPerMessage = 2;
  Cluster slotsNoRate = noRate;
  slotsNoRate.intra.copiesPerMessage = 2;
  const double mib = 1024.0 * 1024;
  EXPECT_DOUBLE_EQ(us(truth, 2, mib), us(noRate, 2, mib));  // 2 ranks: every byte read out of an input
  EXPECT_GT(us(truth, 4, mib), us(noRate, 4, mib) + 20);     // 4 ranks: 2 of 3 steps forward (0.5 MiB at 25 GB/s: 21 us)
  EXPECT_DOUBLE_EQ(us(slots, 4, mib), us(slotsNoRate, 4, mib));
  // Written and read back with the calibration.
  EXPECT_EQ(clusterFromJson(toJson(truth), "test").calibrations.front().freshBandwidthGBps, 25);

  const CalibrationReport report = calibrate(withCopies(1), synthetic(truth, Collective::AllGather, "ring", {2, 3, 4, 5}));
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_NEAR(report.groups[0].freshBandwidthGBps, 25, 1e-3);
  EXPECT_NEAR(report.groups[0].bandwidthGBps, 6, 1e-3);
  const CalibrationReport slotRows = calibrate(withCopies(2), synthetic(slots, Collective::AllGather, "ring", {2, 3, 4, 5}));
  ASSERT_EQ(slotRows.groups.size(), 1u);
  EXPECT_EQ(slotRows.groups[0].freshBandwidthGBps, 0);  // the column is empty through the slots: not fitted
}

// The pieces cclab's host copies went in: the description's where no run recorded them, else
// the runs' where they agree (their fitted bandwidths carry them), else the description's.
TEST(Calibrate, TakesTheHostCopyPieceTheRunsRecorded) {
  Cluster described = withCopies(2);
  described.intra.copyPieceBytes = 4096;
  std::vector<Measurement> rows = synthetic(described, Collective::AllReduce, "rd", {2, 4});
  for (Measurement& m : rows) m.copiesPerMessage = 2;
  EXPECT_EQ(calibrate(described, rows).fitted.intra.copyPieceBytes, 4096);  // unrecorded (-1)
  for (Measurement& m : rows) m.hostCopyPieceBytes = 0;
  EXPECT_EQ(calibrate(described, rows).fitted.intra.copyPieceBytes, 0);
  rows.front().hostCopyPieceBytes = 131072;  // runs with two: the description's own
  EXPECT_EQ(calibrate(described, rows).fitted.intra.copyPieceBytes, 4096);
}

// A rooted call's messages take the single copy from their own threshold (a one-copy send waits
// for its receiver, and the root's next send for it): the simulator prices a broadcast by that
// one, an all_reduce by the other, and calibrate takes each from the runs of its calls.
TEST(Calibrate, RootedCallsTakeTheSingleCopyFromTheirOwnThreshold) {
  const Cluster two = withCopies(2), one = withCopies(1);
  Cluster split = two;
  split.intra.singleCopyBytes = 16 * 1024;
  split.intra.singleCopyRootedBytes = 512 * 1024;
  const auto us = usOn3Ranks;
  // 64 KiB messages: one copy in an all_reduce (rd folds the whole buffer), two in a broadcast.
  EXPECT_DOUBLE_EQ(us(split, Collective::AllReduce, "rd", 64.0 * 1024), us(one, Collective::AllReduce, "rd", 64.0 * 1024));
  EXPECT_NE(us(split, Collective::AllReduce, "rd", 64.0 * 1024), us(two, Collective::AllReduce, "rd", 64.0 * 1024));
  EXPECT_DOUBLE_EQ(us(split, Collective::Broadcast, "tree", 64.0 * 1024), us(two, Collective::Broadcast, "tree", 64.0 * 1024));
  EXPECT_NE(us(split, Collective::Broadcast, "tree", 64.0 * 1024), us(one, Collective::Broadcast, "tree", 64.0 * 1024));
  // From the rooted threshold up, one copy in both.
  EXPECT_DOUBLE_EQ(us(split, Collective::Broadcast, "tree", 16.0 * 1024 * 1024), us(one, Collective::Broadcast, "tree", 16.0 * 1024 * 1024));
  const Cluster back = clusterFromJson(toJson(split), "test");  // written and read back
  EXPECT_EQ(back.intra.singleCopyBytes, 16 * 1024);
  EXPECT_EQ(back.intra.singleCopyRootedBytes, 512 * 1024);

  std::vector<Measurement> rows = synthetic(split, Collective::AllReduce, "rd", {2, 4});
  std::vector<Measurement> rooted = synthetic(split, Collective::Broadcast, "tree", {2, 4});
  for (Measurement& m : rows) m.copiesPerMessage = 2, m.singleCopyBytes = 16 * 1024;
  for (Measurement& m : rooted) m.copiesPerMessage = 2, m.singleCopyBytes = 512 * 1024;
  rows.insert(rows.end(), rooted.begin(), rooted.end());
  const Cluster fitted = calibrate(two, rows).fitted;
  EXPECT_EQ(fitted.intra.singleCopyBytes, 16 * 1024);
  EXPECT_EQ(fitted.intra.singleCopyRootedBytes, 512 * 1024);
}

// On a transport of two copies per message the sender writes each message itself, so a root
// that sends many writes them one after another: a binomial broadcast's longest sequence of
// writes is 1, 2, 2, 3 buffers at 2-5 ranks (the root's children in turn, then a child's), a
// scatter's the root's (n-1)/n of the buffer, tree or linear. On one copy the receivers copy at
// once and neither holds (a 3-rank binomial broadcast costs what a 2-rank one does).
TEST(Calibrate, ARootWritesItsMessagesInTurnOnATransportOfTwoCopies) {
  Cluster one = amdThroughTheSlots();
  one.intra.caches.clear();  // one copy rate at every rank count: the ratios are the plans'
  Cluster two = one;
  two.intra.copiesPerMessage = 2;
  const double bytes = 1024.0 * 1024 * 1024;  // latencies vanish beside the copies
  auto ratio = [&](Cluster c, Collective collective, const char* algo, int n) {
    auto at = [&](int ranks) {
      Cluster shaped = c;
      reshape(shaped, 1, ranks);
      return Predictor(shaped).predict(Query{collective, algo, bytes, ranks, 1, false, "synthetic", 1}).timeUs;
    };
    return at(n) / at(2);
  };
  EXPECT_NEAR(ratio(two, Collective::Broadcast, "tree", 3), 2, 0.02);
  EXPECT_NEAR(ratio(two, Collective::Broadcast, "tree", 4), 2, 0.02);
  EXPECT_NEAR(ratio(two, Collective::Broadcast, "tree", 5), 3, 0.03);
  EXPECT_NEAR(ratio(one, Collective::Broadcast, "tree", 3), 1, 0.01);
  for (const char* algo : {"tree", "linear"}) {
    EXPECT_NEAR(ratio(two, Collective::Scatter, algo, 3), (2.0 / 3) / 0.5, 0.02) << algo;
    EXPECT_NEAR(ratio(two, Collective::Scatter, algo, 5), 0.8 / 0.5, 0.02) << algo;
    EXPECT_GT(ratio(one, Collective::Scatter, algo, 5), 1.15 * ratio(two, Collective::Scatter, algo, 5)) << algo;
  }
  EXPECT_NEAR(ratio(two, Collective::Gather, "tree", 5), 0.8 / 0.5, 0.02);
}

// A flow (a pipelined chain, a binomial reduce, the double binary tree's halves up and down) on
// more ranks than cores whose waiting ranks yield them (cclab's shared-memory transport) costs the
// node's messages shared by the cores: (n - 1) buffers of a chain or a reduce, 2(n - 1) of the
// trees, over 2 cores, so 5 ranks take 4/3 of what 4 do (at 3 the described cluster's reductions
// at the binomial reduce's root take longer than the copies; of one copy a message the binomial
// reduce's root reduces its children in turn, 3 at 5 ranks and 2 at 4, more than the shared
// messages: ABinomialReduceRootReducesItsChildrenInTurn). Where waiting ranks spin (Open MPI) the
// busiest core's rule stays (5 ranks, 3 a core); a lockstep ring is no flow; ranks no more than
// cores are not shared. A chain of one hop only sends or receives at each end: half a swap's
// copies on two copies a message. Calibration takes the setting from the runs' transport.
TEST(Calibrate, AFlowOnMoreRanksThanCoresSharesTheNodesMessagesOverTheCores) {
  Cluster spin = amdThroughTheSlots();
  spin.intra.caches.clear();  // one copy rate at every rank count, no latencies: the ratios are the plans' bytes
  spin.intra.latencyUs = spin.intra.oversubscribedLatencyUs = spin.intra.rendezvousLatencyUs = 0;
  ASSERT_FALSE(spin.intra.waitingRanksYield);
  Cluster yield = spin;
  yield.intra.waitingRanksYield = true;
  const double bytes = 64.0 * static_cast<double>(Context::kDefaultChunkBytes);
  auto time = [&](Cluster c, Collective collective, const char* algo, int n) {
    reshape(c, 1, n);
    return Predictor(c).predict(Query{collective, algo, bytes, n, 1, false, "synthetic", 1}).timeUs;
  };
  for (auto [collective, algo] : {std::pair{Collective::Broadcast, "chain"}, std::pair{Collective::Reduce, "ring"},
                                  std::pair{Collective::Reduce, "tree"}, std::pair{Collective::AllReduce, "tree"}}) {
    // The ring reduce's chain (1 -> 2 -> ... -> 0) is uneven over 2 cores at an odd rank count:
    // AChainRunsAtItsBusiestCore.
    const double share = collective == Collective::Reduce && std::string_view(algo) == "ring" ? 0.625 / 0.5 : 1.0;
    const bool inTurn = collective == Collective::Reduce && std::string_view(algo) == "tree";
    EXPECT_NEAR(time(yield, collective, algo, 5) / time(yield, collective, algo, 4), inTurn ? 3.0 / 2 : share * 4.0 / 3, 1e-9)
        << name(collective) << " " << algo;
    EXPECT_DOUBLE_EQ(time(yield, collective, algo, 2), time(spin, collective, algo, 2)) << name(collective) << " " << algo;
  }
  // Spinning, the chain's busiest core runs 3 of the 5 ranks, each with the buffer and 3 chunks of fill.
  EXPECT_NEAR(time(spin, Collective::Broadcast, "chain", 5) / time(yield, Collective::Broadcast, "chain", 5), 3 * (1 + 3.0 / 64) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(time(yield, Collective::AllReduce, "ring", 5), time(spin, Collective::AllReduce, "ring", 5));
  Cluster twoCopies = spin;
  twoCopies.intra.copiesPerMessage = 2;
  EXPECT_NEAR(time(twoCopies, Collective::Broadcast, "chain", 2) / time(spin, Collective::Broadcast, "chain", 2), 0.5, 1e-9);
  EXPECT_TRUE(clusterFromJson(toJson(yield), "test").intra.waitingRanksYield);  // written and read back

  Cluster two = amdThroughTheSlots();
  std::vector<Measurement> rows = synthetic(two, Collective::Broadcast, "chain", {2, 4});
  for (Measurement& m : rows) m.copiesPerMessage = 2;
  EXPECT_FALSE(calibrate(two, rows).fitted.intra.waitingRanksYield);  // over MPI's transport
  for (Measurement& m : rows) m.waitingRanksYield = true;
  EXPECT_TRUE(calibrate(two, rows).fitted.intra.waitingRanksYield);
}

// A chain's pipeline moves at its busiest core, which carries the message ends of the ranks placed
// on it (rank r on core r mod 2: mpirun --map-by core). The ring reduce runs 1 -> 2 -> ... -> 0:
// at 3 ranks core 0 holds the root's end and rank 2's two (1.5 of the 2 hops' 4 ends; 3 ranks cost
// what 4 do), at 5 ranks 2.5 of 4 hops' ends. The chain broadcast (0 -> 1 -> ... -> n-1) is even.
// A library's reduce priced on the chain's plan orders its ranks its own way: spread evenly.
// Measured (shm/ring-reduce-root-2026-11-29): at 8 MiB root n-1 (an even chain) takes 0.73 of root
// 0's time at 3 ranks (0.67 here) and 0.78-0.81 at 5 (0.8).
TEST(Calibrate, AChainRunsAtItsBusiestCore) {
  Cluster c = amdThroughTheSlots();
  c.intra.caches.clear();
  c.intra.latencyUs = c.intra.oversubscribedLatencyUs = c.intra.rendezvousLatencyUs = 0;
  c.intra.waitingRanksYield = true;
  const double bytes = 64.0 * static_cast<double>(Context::kDefaultChunkBytes);
  auto price = [&](Collective collective, const char* algo, int n, bool spread) {
    Cluster shaped = c;
    reshape(shaped, 1, n);
    const Predictor predictor(shaped);
    Plan plan = predictor.plan(collective, algo, Shape{n, 1}, bytes, false, false);
    if (spread) plan.spreadFlowsEvenly();
    return priceUs(plan, Shape{n, 1}, predictor.pricing());
  };
  EXPECT_NEAR(price(Collective::Reduce, "ring", 3, false) / price(Collective::Reduce, "ring", 4, false), 1.0, 1e-9);
  EXPECT_NEAR(price(Collective::Reduce, "ring", 5, false) / price(Collective::Reduce, "ring", 4, false), 2.5 / 1.5, 1e-9);
  EXPECT_NEAR(price(Collective::Reduce, "ring", 3, false) / price(Collective::Reduce, "ring", 3, true), 1.5, 1e-9);
  EXPECT_NEAR(price(Collective::Reduce, "ring", 5, false) / price(Collective::Reduce, "ring", 5, true), 1.25, 1e-9);
  EXPECT_NEAR(price(Collective::Reduce, "ring", 4, false) / price(Collective::Reduce, "ring", 4, true), 1.0, 1e-9);
  for (int n : {3, 5}) {
    EXPECT_NEAR(price(Collective::Broadcast, "chain", n, false) / price(Collective::Broadcast, "chain", n, true), 1.0, 1e-9) << n;
  }
}

// Toward a binomial tree's root a rank sends once it has its subtree, and on shared memory a
// message waits in the root's slots while the root copies out another: a gather or a reduce pays
// the tree's depth in latencies (1, 1, 2, 2 at 2-5 ranks), not its rounds (1, 2, 2, 3). On a GPU
// the root's receives queue in round order: the rounds.
TEST(Calibrate, TowardABinomialRootSharedMemoryPaysTheTreesDepth) {
  Cluster shm = amdThroughTheSlots();
  shm.intra.caches.clear();
  shm.intra.latencyUs = 1;
  shm.intra.oversubscribedLatencyUs = shm.intra.rendezvousLatencyUs = 0;
  const Cluster gpu = loadCluster("dgx-h100");
  auto latencies = [](Cluster c, Collective collective, int n) {
    reshape(c, 1, n);
    const double latency = c.intra.latencyUs;
    const double bytes = 8;  // the copies vanish beside the latencies
    return (Predictor(c).predict(Query{collective, "tree", bytes, n, 1, false, "synthetic", 1}).timeUs - c.gpu.launchLatencyUs) / latency;
  };
  for (Collective collective : {Collective::Gather, Collective::Reduce}) {
    const std::array<double, 4> depth = {1, 1, 2, 2}, rounds = {1, 2, 2, 3};
    for (int n = 2; n <= 5; ++n) {
      EXPECT_NEAR(latencies(shm, collective, n), depth[static_cast<std::size_t>(n - 2)], 0.01) << name(collective) << " " << n;
      EXPECT_NEAR(latencies(gpu, collective, n) - latencies(gpu, collective, 2), rounds[static_cast<std::size_t>(n - 2)] - 1, 0.05)
          << name(collective) << " " << n;
    }
  }
  EXPECT_NEAR(latencies(shm, Collective::Scatter, 3), 2, 0.01);  // away from the root: the rounds
}

// A binomial tree's plan priced on the described 2-core CPU with its copies as the only cost (no
// caches, no latencies), one copy a message from 64 KiB, waiting ranks yielding their cores.
double oneCopyTreeUs(Collective collective, int n, double bytes, bool inPlace, bool ownCopies) {
  Cluster c = loadCluster("cpu-2core-amd-epyc");
  c.intra.caches.clear();
  c.intra.latencyUs = c.intra.oversubscribedLatencyUs = c.intra.rendezvousLatencyUs = 0;
  c.intra.singleCopyBytes = c.intra.singleCopyRootedBytes = 64 * 1024;
  c.intra.waitingRanksYield = true;
  reshape(c, 1, n);
  const Predictor predictor(c);
  return priceUs(predictor.plan(collective, "tree", Shape{n, 1}, bytes, inPlace, ownCopies), Shape{n, 1}, predictor.pricing());
}

// A binomial broadcast of one copy a message on more ranks than cores: its receivers read the
// root's buffer at once, each on its own core, and out of place cclab's root copies its input to
// its output beside them (tree_broadcast.cc), so the busiest core copies as many buffers as it has
// receivers, and the root's. Rank r on core r mod 2, root 0: at 3 ranks core 0 holds the root and
// rank 2 (2 buffers out of place, 1 in place), at 4 ranks 2 either way, at 5 ranks 3 and 2.
// Measured off the caches on the Zen 5 VM (algorithms-shm-off-cache, 8 MiB, over 2 ranks): 1.85,
// 2.06 and 2.50 out of place, 1.13, 1.97 and 1.91 in place; the depth alone (1, 2, 2) had the
// 3-rank call out of place at half its time.
TEST(Calibrate, AOneCopyBroadcastCopiesOnItsReceiversCores) {
  const double bytes = 8.0 * 1024 * 1024;
  auto price = [&](int n, bool inPlace, bool ownCopies) { return oneCopyTreeUs(Collective::Broadcast, n, bytes, inPlace, ownCopies); };
  const double one = price(2, false, true);
  const std::array<double, 3> outOfPlace = {2, 2, 3}, inPlace = {1, 2, 2};
  for (int n = 3; n <= 5; ++n) {
    EXPECT_NEAR(price(n, false, true) / one, outOfPlace[static_cast<std::size_t>(n - 3)], 1e-9) << n;
    EXPECT_NEAR(price(n, true, true) / one, inPlace[static_cast<std::size_t>(n - 3)], 1e-9) << n;
    EXPECT_NEAR(price(n, false, false) / one, inPlace[static_cast<std::size_t>(n - 3)], 1e-9) << n;  // the algorithm alone: no root copy
  }
  EXPECT_NEAR(price(2, true, true) / one, 1, 1e-9);  // 2 ranks on 2 cores: the root's copy on a core of its own
}

// A binomial gather's or scatter's receivers, of one copy a message, copy each run out of its
// sender's memory on their own cores, as the cores are shared (rank r on core r mod 2): in blocks
// of S/n, a scatter's 1, 1, 3, 4 at 2-5 ranks in place (at 3 the two leaves copy at once) and 1,
// 2, 4, 5 out of place (the root's own block on core 0 beside rank 2's and 4's); a gather's 1, 2,
// 5, 6 in place (the root takes each child's run in turn, rank 2 its own block and rank 3's on the
// same core) and 2, 3, 6, 7 out of place. Not the root's port's (n - 1) blocks in turn, which had
// a 3-rank scatter at 4/3 of 2 ranks' time: measured off the caches on the Zen 5 VM
// (algorithms-shm-off-cache, 8 MiB, over 2 ranks in place) 0.72 in place, 1.52 out of place.
TEST(Calibrate, ABinomialGatherAndScatterCopyRunsOnTheReceiversCores) {
  const double bytes = 8.0 * 1024 * 1024;
  auto price = [&](Collective collective, int n, bool inPlace) { return oneCopyTreeUs(collective, n, bytes, inPlace, true); };
  struct Blocks {
    Collective collective;
    std::array<double, 4> inPlace, outOfPlace;  // at 2-5 ranks
  };
  for (const Blocks& b : {Blocks{Collective::Scatter, {1, 1, 3, 4}, {1, 2, 4, 5}}, Blocks{Collective::Gather, {1, 2, 5, 6}, {2, 3, 6, 7}}}) {
    const double one = price(b.collective, 2, true) / (bytes / 2);  // a block's time per byte
    for (int n = 2; n <= 5; ++n) {
      const auto i = static_cast<std::size_t>(n - 2);
      EXPECT_NEAR(price(b.collective, n, true), b.inPlace[i] * bytes / n * one, 1e-6) << name(b.collective) << " " << n;
      EXPECT_NEAR(price(b.collective, n, false), b.outOfPlace[i] * bytes / n * one, 1e-6) << name(b.collective) << " " << n;
    }
  }
}

// Toward a binomial reduce's root, of one copy a message, the root reduces each child's buffer
// in turn on its own core: ceil(log2 n) buffers in sequence, a floor under the node's g - 1
// buffers shared by the cores (1, 1.5 and 2 at 3-5 ranks on 2 cores). Through the slots the
// senders copy too, and the shared messages stand. Measured off the caches on the Zen 5 VM
// (algorithms-shm-off-cache, 8 MiB, over 2 ranks): 1.72, 2.23 and 3.12 out of place.
TEST(Calibrate, ABinomialReduceRootReducesItsChildrenInTurn) {
  Cluster c = loadCluster("cpu-2core-amd-epyc");
  c.intra.caches.clear();
  c.intra.latencyUs = c.intra.oversubscribedLatencyUs = c.intra.rendezvousLatencyUs = 0;
  c.intra.waitingRanksYield = true;
  const double bytes = 8.0 * 1024 * 1024;
  auto price = [&](Cluster cluster, int n, bool inSequence = true) {
    reshape(cluster, 1, n);
    const Predictor predictor(cluster);
    Plan plan = predictor.plan(Collective::Reduce, "tree", Shape{n, 1}, bytes, false, false);
    for (int i = 0; i < plan.phaseCount && !inSequence; ++i) {
      for (Transfer& t : plan.phases[static_cast<std::size_t>(i)].transfers) t.critical.rootInSequence = 0;
    }
    return priceUs(plan, Shape{n, 1}, predictor.pricing());
  };
  Cluster oneCopy = c, slots = c;
  oneCopy.intra.singleCopyBytes = oneCopy.intra.singleCopyRootedBytes = 64 * 1024;
  slots.intra.singleCopyBytes = slots.intra.singleCopyRootedBytes = 0;
  slots.intra.copiesPerMessage = 2;  // cclab's slots: the sender copies in, the receiver out
  const std::array<double, 3> inTurn = {2, 2, 3};  // over 2 ranks; shared by the cores: 1, 1.5, 2
  for (int n = 3; n <= 5; ++n) {
    EXPECT_NEAR(price(oneCopy, n) / price(oneCopy, 2), inTurn[static_cast<std::size_t>(n - 3)], 1e-9) << n;
    EXPECT_NEAR(price(slots, n), price(slots, n, false), 1e-9) << n;  // through the slots: as before
  }
  EXPECT_NEAR(price(oneCopy, 5, false) / price(oneCopy, 2), 2, 1e-9);  // the floor is what moved it
}

// Back to back on more ranks than cores, with waiting ranks yielding (cclab's shared memory), a
// binomial tree's calls overlap: each costs the message ends its busiest core serves, not its
// rounds. Rank r on core r mod 2, root 0: at 3 ranks core 0 holds the root's 2 ends and rank 2's
// 1; at 4, the root's 2 and rank 2's 2; at 5, the root's 3, rank 2's 2 and rank 4's 1. Measured
// with steady-state loops (shm/min-time-sweep-2026-11-30) the binomial broadcast takes 0.21,
// 0.60, 0.72 and 1.13 us at 2-5 ranks: 0.18-0.21 per end. Where ranks spin, the rounds stay.
TEST(Calibrate, BackToBackBinomialCallsRunAtTheBusiestCoresMessageEnds) {
  Cluster spin = amdThroughTheSlots();
  spin.intra.caches.clear();
  spin.intra.latencyUs = 1;
  spin.intra.oversubscribedLatencyUs = spin.intra.rendezvousLatencyUs = 0;
  Cluster yield = spin;
  yield.intra.waitingRanksYield = true;
  auto latencies = [](Cluster c, Collective collective, int n) {
    reshape(c, 1, n);
    return Predictor(c).predict(Query{collective, "tree", 8, n, 1, false, "synthetic", 1}).timeUs / c.intra.latencyUs;
  };
  const std::array<double, 4> ends = {1, 3, 4, 6};
  for (Collective collective : {Collective::Broadcast, Collective::Reduce, Collective::Gather, Collective::Scatter}) {
    for (int n = 2; n <= 5; ++n) {
      EXPECT_NEAR(latencies(yield, collective, n), ends[static_cast<std::size_t>(n - 2)], 0.01) << name(collective) << " " << n;
    }
  }
  EXPECT_NEAR(latencies(spin, Collective::Broadcast, 5), 3, 0.01);  // spinning: its rounds
  EXPECT_NEAR(latencies(spin, Collective::Reduce, 5), 2, 0.01);     // toward the root: its depth
  // The chain keeps its hops (on 2 cores a broadcast chain's busiest core serves as many ends).
  reshape(yield, 1, 5);
  EXPECT_NEAR(Predictor(yield).predict(Query{Collective::Broadcast, "chain", 8, 5, 1, false, "synthetic", 1}).timeUs, 4, 0.01);
}

// A step pays the rendezvous exactly when its message reaches the eager limit: a 2-rank ring
// all_gather sends half the buffer per step.
TEST(Calibrate, TheRendezvousStartsAtTheEagerLimit) {
  Cluster c = amdThroughTheSlots();
  reshape(c, 1, 2);
  auto time = [](const Cluster& cluster, double bytes) {
    return Predictor(cluster).predict(Query{Collective::AllGather, "ring", bytes, 2, 1, false, ""}).timeUs;
  };
  Cluster without = c;
  without.intra.rendezvousLatencyUs = 0;
  EXPECT_DOUBLE_EQ(time(c, 8190), time(without, 8190));  // 4095 B messages: eager
  EXPECT_NEAR(time(c, 8192) - time(without, 8192), c.intra.rendezvousLatencyUs, 1e-9);  // one 4096 B step
  Cluster noLimit = c;
  noLimit.intra.eagerLimitBytes = 0;
  EXPECT_DOUBLE_EQ(time(noLimit, 1 << 20), time(without, 1 << 20));
}

// rhd's all_reduce folds a rank count that is not a power of two as rd does (recursive_fold.cc):
// calibrated, the fold's bytes go at rd's fitted bandwidth and its steps at rhd's own latency
// (Phase::bandwidthFitOf). A power of two has no fold; without rd's fit rhd prices all of it.
Calibration syntheticFit(const char* algo, double latencyUs, double bandwidthGBps) {
  Calibration e;
  e.implementation = "synthetic";
  e.collective = Collective::AllReduce;
  e.algo = algo;
  e.latencyUs = latencyUs;
  e.bandwidthGBps = bandwidthGBps;
  return e;
}

TEST(Calibrate, RhdFoldsAtRdsFittedBandwidth) {
  const double bytes = 16.0 * 1024 * 1024;
  auto rhdUs = [&](int n, std::vector<Calibration> fits) {
    Cluster c = loadCluster("dgx-h100");
    reshape(c, 1, n);
    c.calibrations = std::move(fits);
    return Predictor(c).predict(Query{Collective::AllReduce, "rhd", bytes, n, 1, false, "synthetic"}).timeUs;
  };
  const Calibration rhd = syntheticFit("rhd", 5, 100);
  const double sameRate = rhdUs(3, {rhd, syntheticFit("rd", 5, 100)});
  // The fold carries the whole buffer in and out (2 x 16 MiB one way): at 50 GB/s instead of 100.
  EXPECT_NEAR(rhdUs(3, {rhd, syntheticFit("rd", 5, 50)}) - sameRate, 2 * bytes * 1e-3 / 50 - 2 * bytes * 1e-3 / 100, 1e-6);
  EXPECT_DOUBLE_EQ(rhdUs(3, {rhd, syntheticFit("rd", 500, 100)}), sameRate);  // rd's latency: not borrowed
  EXPECT_DOUBLE_EQ(rhdUs(3, {rhd}), sameRate);                             // no rd fit: rhd's own rate
  EXPECT_DOUBLE_EQ(rhdUs(4, {rhd, syntheticFit("rd", 5, 50)}), rhdUs(4, {rhd}));  // no fold

  // Calibrating on rows with folds (2-4 ranks) takes the fold's bytes off at rd's fit first, so
  // rhd's own numbers come back exactly and 5 ranks are predicted exactly.
  Cluster truth = loadCluster("dgx-h100");
  truth.calibrations = {rhd, syntheticFit("rd", 20, 50)};
  std::vector<Measurement> rows = synthetic(truth, Collective::AllReduce, "rhd", {2, 3, 4});
  const std::vector<Measurement> rd = synthetic(truth, Collective::AllReduce, "rd", {2, 3, 4});
  rows.insert(rows.end(), rd.begin(), rd.end());
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
  const Calibration* fitted = findCalibration(report.fitted.calibrations, "synthetic", Collective::AllReduce, "rhd", false);
  ASSERT_NE(fitted, nullptr);
  EXPECT_NEAR(fitted->bandwidthGBps, 100, 1e-6);
  EXPECT_NEAR(fitted->latencyUs, 5, 1e-6);
  EXPECT_LT(fitted->fit.maxAbsErrorPct, 1e-6);
  EXPECT_NE(std::find(report.notes.begin(), report.notes.end(),
                      "synthetic all_reduce rhd: 10 rows with phases that borrow rd's fitted bandwidths: 10 priced at them before the fit"),
            report.notes.end());
  const ValidationReport heldOut = validate(report.fitted, synthetic(truth, Collective::AllReduce, "rhd", {5}));
  EXPECT_LT(heldOut.ranges.back().maxAbsErrorPct, 1e-6);
}

// rhd's all_gather and reduce_scatter fold with rd's messages (recursive_fold.cc): calibrated, the
// fold's steps go at rd's all_reduce's fitted latency and its bytes at rhd's own bandwidth
// (Phase::latencyFitOf); a power of two has no fold, and without rd's fit rhd prices all of it.
TEST(Calibrate, RhdAllGatherFoldsAtRdsFittedLatency) {
  const double bytes = 1024 * 1024;
  auto fit = [](Collective c, const char* algo, double latencyUs, double bandwidthGBps) {
    Calibration e = syntheticFit(algo, latencyUs, bandwidthGBps);
    e.collective = c;
    return e;
  };
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
    auto rhdUs = [&](int n, std::vector<Calibration> fits) {
      Cluster cluster = loadCluster("dgx-h100");
      reshape(cluster, 1, n);
      cluster.calibrations = std::move(fits);
      return Predictor(cluster).predict(Query{c, "rhd", bytes, n, 1, false, "synthetic"}).timeUs;
    };
    const Calibration rhd = fit(c, "rhd", 5, 100);
    const double sameLatency = rhdUs(3, {rhd, fit(Collective::AllReduce, "rd", 5, 100)});
    // The fold is two steps (in and out), one pair of ranks: 2 x (20 - 5) us more.
    EXPECT_NEAR(rhdUs(3, {rhd, fit(Collective::AllReduce, "rd", 20, 100)}) - sameLatency, 2 * 15.0, 1e-6) << name(c);
    EXPECT_DOUBLE_EQ(rhdUs(3, {rhd, fit(Collective::AllReduce, "rd", 5, 10)}), sameLatency) << name(c);  // rd's bandwidth: not borrowed
    EXPECT_DOUBLE_EQ(rhdUs(3, {rhd}), sameLatency) << name(c);                                        // no rd fit: rhd's own
    EXPECT_DOUBLE_EQ(rhdUs(4, {rhd, fit(Collective::AllReduce, "rd", 20, 100)}), rhdUs(4, {rhd})) << name(c);  // no fold

    // Calibrating on rows with folds takes the fold's steps off at rd's latency first: rhd's own
    // numbers come back exactly and 5 ranks are predicted exactly.
    Cluster truth = loadCluster("dgx-h100");
    truth.calibrations = {rhd, fit(Collective::AllReduce, "rd", 20, 50)};
    std::vector<Measurement> rows = synthetic(truth, c, "rhd", {2, 3, 4});
    const std::vector<Measurement> rd = synthetic(truth, Collective::AllReduce, "rd", {2, 3, 4});
    rows.insert(rows.end(), rd.begin(), rd.end());
    const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
    const Calibration* fitted = findCalibration(report.fitted.calibrations, "synthetic", c, "rhd", false);
    ASSERT_NE(fitted, nullptr) << name(c);
    EXPECT_NEAR(fitted->latencyUs, 5, 1e-6) << name(c);
    EXPECT_NEAR(fitted->bandwidthGBps, 100, 1e-6) << name(c);
    EXPECT_NE(std::find(report.notes.begin(), report.notes.end(),
                        "synthetic " + std::string(name(c)) + " rhd: 10 rows with phases that borrow rd all_reduce's fitted latencies: 10 priced at them "
                                    "before the fit"),
              report.notes.end())
        << name(c);
    const ValidationReport heldOut = validate(report.fitted, synthetic(truth, c, "rhd", {5}));
    EXPECT_LT(heldOut.ranges.back().maxAbsErrorPct, 1e-6) << name(c);
  }
}

// On a GPU Bruck copies in its own HBM (its rotations) and transfers over the links: the rows are
// fitted on the transfers, the copies priced as the GPU's memory is described, and the fit then
// predicts a rank count it did not see exactly (the predictor prices the copies the same way).
TEST(Calibrate, FitsBrucksTransfersOnAGpuWithItsCopiesPricedApart) {
  Cluster truth = loadCluster("dgx-h100");
  truth.intra.latencyUs = 20;
  truth.intra.bandwidthGBps = 300;
  truth.intra.efficiency = 1;
  for (Collective c : {Collective::AllGather, Collective::AllToAll}) {
    const auto rows = synthetic(truth, c, "bruck", {2, 4, 8});
    const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
    ASSERT_EQ(report.groups.size(), 1u) << name(c);  // no row left out
    EXPECT_EQ(report.rowsUsed, static_cast<int>(rows.size()));
    EXPECT_EQ(report.groups[0].link, LinkClass::Intra);
    EXPECT_NEAR(report.groups[0].latencyUs, 20, 1e-6);
    EXPECT_NEAR(report.groups[0].bandwidthGBps, 300, 1e-3);
    for (const auto& note : report.notes) EXPECT_EQ(note.find("skipped"), std::string::npos) << note;

    const auto unseen = synthetic(truth, c, "bruck", {5});
    Cluster fitted = report.fitted;
    reshape(fitted, 1, 5);
    const Predictor predictor(fitted);
    for (const Measurement& m : unseen) {
      const double bytes = static_cast<double>(m.row.sizeBytes);
      const double predicted = predictor.predict(Query{c, "bruck", bytes, 5, 1, false, "synthetic"}).timeUs;
      EXPECT_NEAR(predicted, m.row.timeUs, 1e-6 * m.row.timeUs) << name(c) << " " << bytes;
    }
  }
}

// Processes sharing one GPU (the H100 sweeps: 2-5 processes under MPS) pay a latency per step that
// grows with the processes each step keeps busy on it, and their copies share its bandwidth.
// Calibration recovers both from 2 and 4 processes and predicts 3 and 5; read as a GPU per process
// (perDevice 1), the same rows cannot be fitted by one latency, and 5 processes are predicted short.
TEST(Calibrate, RecoversTheLatencyOfProcessesSharingAGpu) {
  Cluster truth = loadCluster("dgx-h100");
  truth.intra.latencyUs = 10;
  truth.intra.oversubscribedLatencyUs = 2;  // per further process busy on the GPU in a step
  truth.intra.bandwidthGBps = 300;
  truth.intra.efficiency = 1;
  const auto rows = synthetic(truth, Collective::AllReduce, "ring", {2, 4}, true);
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_NEAR(report.groups[0].latencyUs, 10, 1e-6);
  EXPECT_NEAR(report.groups[0].oversubscribedLatencyUs, 2, 1e-6);
  EXPECT_NEAR(report.groups[0].bandwidthGBps, 300, 1e-3);
  const auto unseen = synthetic(truth, Collective::AllReduce, "ring", {3, 5}, true);
  const ValidationReport heldOut = validate(report.fitted, unseen);
  ASSERT_EQ(heldOut.rows.size(), unseen.size());
  for (const auto& row : heldOut.rows) EXPECT_NEAR(row.errorPct, 0, 1e-6) << row.measurement->row.nranks;

  // The same rows read as one GPU per process: the fit must average the two latencies.
  std::vector<Measurement> asIfSeparate = rows, unseenSeparate = unseen;
  for (auto& m : asIfSeparate) m.perDevice = 1;
  for (auto& m : unseenSeparate) m.perDevice = 1;
  const CalibrationReport blind = calibrate(loadCluster("dgx-h100"), asIfSeparate);
  EXPECT_GT(blind.groups[0].fit.maxAbsErrorPct, 1.0);
  double worst = 0;
  for (const auto& row : validate(blind.fitted, unseenSeparate).rows) worst = std::min(worst, row.errorPct);
  EXPECT_LT(worst, -5.0);  // 5 processes: each step's 8 us of sharing is missed

  // On a cluster with a GPU per process the term costs nothing.
  Cluster shaped = truth;
  reshape(shaped, 1, 4);
  const Predictor predictor(shaped);
  const double own = predictor.predict(Query{Collective::AllReduce, "ring", 1024, 4, 1, false, ""}).timeUs;
  const double shared = predictor.predict(Query{Collective::AllReduce, "ring", 1024, 4, 1, false, "", 4}).timeUs;
  // 6 steps, 3 further processes each at 2 us; and the 3 others' copies of a rank's 1,536 B
  // (2 x 3/4 of 1 KiB) share the GPU's 300 GB/s.
  EXPECT_NEAR(shared - own, 6 * 3 * 2.0 + 3 * 1536 * 1e-3 / 300, 1e-9);
}

TEST(Calibrate, ReadsNcclTestsLogsAndJson) {
  const std::string dir = std::string(CCLAB_TEST_DATA) + "/nccl-tests-h100/";
  const auto rows = loadMeasurements({dir + "all_reduce.txt", dir + "all_gather.txt", dir + "all_reduce_perf.json"});
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), rows);
  bool sawOutOfPlace = false;
  for (const auto& g : report.groups) {
    EXPECT_EQ(g.implementation, "nccl");
    EXPECT_EQ(g.link, LinkClass::Local);  // one GPU: a local copy
    if (!g.inPlace && g.collective == Collective::AllReduce) {
      sawOutOfPlace = true;
      EXPECT_GT(g.latencyUs, 4);           // the launch, measured 6-9 us
      EXPECT_LT(g.latencyUs, 10);
      EXPECT_GT(g.bandwidthGBps, 1200);    // copy rate: ~1.5 TB/s of algbw measured
      EXPECT_LT(g.bandwidthGBps, 2000);
      EXPECT_GT(g.fit.r2, 0.95);
    }
  }
  EXPECT_TRUE(sawOutOfPlace);
}

// A size measured in several launches is read as its fastest launch (mergeRepeats): three
// launches of each row, two of them slowed by the host (1.3x and 2.5x), fit the same parameters
// as one clean launch, where fitting every launch as its own row does not and their median reads
// the 1.3x launch; two launches give the faster (or, as the median, the mean of the pair),
// bandwidths scaled to the time; rows that differ in place stay apart.
TEST(Calibrate, RepeatedLaunchesAreReadAsTheFastest) {
  const auto clean = portFabricRows();
  std::vector<Measurement> launches;
  for (double slowdown : {1.3, 2.5, 1.0}) {
    for (Measurement m : clean) {
      m.row.timeUs *= slowdown;
      launches.push_back(m);
    }
  }
  const std::vector<Measurement> merged = mergeRepeats(launches);
  const std::vector<Measurement> medians = mergeRepeats(launches, Launches::Median);
  ASSERT_EQ(merged.size(), clean.size());
  ASSERT_EQ(medians.size(), clean.size());
  for (std::size_t i = 0; i < clean.size(); ++i) {
    EXPECT_EQ(merged[i].repeats, 3);
    EXPECT_DOUBLE_EQ(merged[i].row.timeUs, clean[i].row.timeUs);
    EXPECT_DOUBLE_EQ(medians[i].row.timeUs, 1.3 * clean[i].row.timeUs);
    EXPECT_EQ(merged[i].row.sizeBytes, clean[i].row.sizeBytes);
  }
  EXPECT_EQ(repeatsNote(merged, Launches::Fastest), ", each the fastest of 3 launches");
  EXPECT_EQ(repeatsNote(medians, Launches::Median), ", each the median of 3 launches");
  EXPECT_EQ(repeatsNote(clean, Launches::Fastest), "");
  const CalibrationReport fitted = calibrate(loadCluster("dgx-h100"), merged);
  ASSERT_EQ(fitted.groups.size(), 1u);
  EXPECT_NEAR(fitted.groups[0].bandwidthGBps, 300, 1e-6);
  EXPECT_NEAR(fitted.groups[0].latencyUs, 2.5, 1e-6);
  const CalibrationReport everyLaunch = calibrate(loadCluster("dgx-h100"), launches);
  ASSERT_EQ(everyLaunch.groups.size(), 1u);
  EXPECT_GT(std::abs(everyLaunch.groups[0].bandwidthGBps - 300), 15);  // 5% off
  EXPECT_LT(validate(fitted.fitted, clean).ranges[5].maxAbsErrorPct, 1e-6);
  EXPECT_GT(validate(everyLaunch.fitted, clean).ranges[5].medianAbsErrorPct, 5);
  EXPECT_GT(validate(calibrate(loadCluster("dgx-h100"), medians).fitted, clean).ranges[5].medianAbsErrorPct, 25);  // the 1.3x launch

  Measurement a = clean.front(), b = clean.front(), other = clean.front();
  a.row.timeUs = 10;
  a.row.algbwGBps = 2;
  b.row.timeUs = 20;
  b.row.algbwGBps = 1;
  other.row.inPlace = !other.row.inPlace;
  const std::vector<Measurement> pair = mergeRepeats({b, other, a});
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_DOUBLE_EQ(pair[0].row.timeUs, 10);
  EXPECT_DOUBLE_EQ(pair[0].row.algbwGBps, 2);
  EXPECT_EQ(pair[0].repeats, 2);
  EXPECT_EQ(pair[1].repeats, 1);
  EXPECT_EQ(pair[1].row.inPlace, other.row.inPlace);
  Measurement sharedBuffers = a;  // launches on shared and on private buffers are not repeats of each other
  sharedBuffers.sharedHostBuffers = true;
  EXPECT_EQ(mergeRepeats({a, sharedBuffers}).size(), 2u);
  const std::vector<Measurement> pairMedian = mergeRepeats({b, other, a}, Launches::Median);
  EXPECT_DOUBLE_EQ(pairMedian[0].row.timeUs, 15);
  EXPECT_DOUBLE_EQ(pairMedian[0].row.algbwGBps, 2.0 * 10 / 15);
  EXPECT_THROW(parseLaunches("min", "--launches"), cclab::InputError);
  EXPECT_EQ(parseLaunches("median", "--launches"), Launches::Median);
}

TEST(Calibrate, TooFewRowsAreReportedNotFitted) {
  const auto rows = synthetic(loadCluster("dgx-h100"), Collective::Broadcast, "chain", {4});
  std::vector<Measurement> two(rows.begin(), rows.begin() + 2);
  const CalibrationReport report = calibrate(loadCluster("dgx-h100"), two);
  EXPECT_TRUE(report.groups.empty());
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.back().find("too few"), std::string::npos);
  // Enough is more rows than the terms the rows can see (latency, bandwidth, a rooted call's
  // own term: 3 here), not than every column the fit has.
  std::vector<Measurement> four(rows.begin(), rows.begin() + 4);
  const CalibrationReport fitted = calibrate(loadCluster("dgx-h100"), four);
  EXPECT_EQ(fitted.groups.size(), 1u);
}

}  // namespace
}  // namespace cclab::sim
