// Every simulated algorithm on every collective it does, on every preset from 2 ranks to 16,384
// GPUs, at every size from 1 byte to 16 GiB: the predicted time is finite, positive, never falls
// as the size grows, and never beats what the cluster's links can carry. `auto` only prices the
// winner, so without this sweep an algorithm that never wins would never be checked.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/algorithms/algorithms.h"
#include "sim/predictor.h"
#include "sim/pricing.h"

namespace cclab::sim {
namespace {

constexpr double kLargestBytes = 16.0 * 1024 * 1024 * 1024;
constexpr double kSizeFactor = 4;
// Room for rounding only: a real drop in time, or a real excess over a link, is far larger.
constexpr double kRelativeTolerance = 1e-9;

// 1 B, 4 B, 16 B, ..., 16 GiB.
std::vector<double> sweepSizes() {
  std::vector<double> sizes;
  for (double bytes = 1; bytes <= kLargestBytes; bytes *= kSizeFactor) sizes.push_back(bytes);
  return sizes;
}

// ---- The link bound ----------------------------------------------------------------------------
//
// What any algorithm must move for one call of S bytes (the size column: the larger buffer), in
// one direction, across three cuts; n ranks, p nodes, g per node.
//
// - Information: a rank's output that depends on data it does not hold must be received in full
//   (no compression), and data that other ranks' outputs depend on must be sent in full. So an
//   all_gather rank receives the (n-1)/n of S that others hold; a reduce_scatter rank sends the
//   (n-1)/n of S that others reduce; a reduce root receives S (the sum of the others' S) and
//   every other rank sends S; a broadcast non-root receives S; alltoall sends (n-1)/n S; the
//   gather root receives (scatter root sends) (n-1)/n S; a sendrecv rank sends S to the next.
// - all_reduce with reductions done by the ranks (point-to-point messages): the ranks together
//   send at least 2(n-1) S, so the busiest one at least 2(n-1)/n S (Patarasuk and Yuan,
//   "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC 2009: the
//   bound a ring meets). A switch that reduces (NVLS) beats it: there each rank still sends its
//   S and receives the sum, S each way, which is all the bound then asks.
// - Between nodes the same arguments apply to each node as one process holding its ranks' data
//   (combining inside a node is free): all_reduce 2(p-1)/p S through the busiest node's NICs (the
//   network does not reduce), a node's share of blocks elsewhere for the blocked collectives
//   ((p-1)/p S; alltoall: g ranks' (n-g)/n S each), S for broadcast, reduce and sendrecv.
struct MinimumTraffic {
  double busiestRank = 0;  // through the busiest rank's port
  double allRanks = 0;     // through all ranks' ports together
  double busiestNode = 0;  // through the busiest node's NICs (0 on one node)
};

MinimumTraffic minimumTraffic(Collective collective, const Shape& shape, double bytes, bool reducesInSwitch) {
  const double n = shape.ranks, p = shape.nodes, g = shape.perNode();
  const double othersShare = (n - 1) / n;   // of a blocked buffer: the blocks of the other ranks
  const double offNodeShare = (n - g) / n;  // the blocks of ranks on other nodes
  const double crossesNodes = p > 1 ? 1.0 : 0.0;
  switch (collective) {
    case Collective::AllReduce:
      if (reducesInSwitch) return {bytes, n * bytes, 2 * (p - 1) / p * bytes};
      return {2 * othersShare * bytes, 2 * (n - 1) * bytes, 2 * (p - 1) / p * bytes};
    case Collective::AllGather:
    case Collective::ReduceScatter: return {othersShare * bytes, (n - 1) * bytes, offNodeShare * bytes};
    case Collective::AllToAll: return {othersShare * bytes, (n - 1) * bytes, g * offNodeShare * bytes};
    case Collective::Broadcast:
    case Collective::Reduce: return {bytes, (n - 1) * bytes, crossesNodes * bytes};
    case Collective::Gather:
    case Collective::Scatter: return {othersShare * bytes, othersShare * bytes, offNodeShare * bytes};
    case Collective::SendRecv: return {bytes, n * bytes, crossesNodes * bytes};
  }
  throw std::logic_error(fmt::format("no minimum traffic for {}: add the collective here", name(collective)));
}

// The least time one cut allows: its minimum bytes at the line rate of the links across it.
struct CutBound {
  std::string cut;
  double bytes = 0;
  double gbps = 0;
  double us() const { return gbps > 0 ? bytes * 1e-3 / gbps : 0.0; }  // bytes / (GB/s) in microseconds
};

// The link bound of a call: the slowest of its cuts, priced at the line rates the cluster
// description gives (one direction; no efficiency: what a library achieves of line rate is the
// model's business, the bound is physics). GPUs: a rank's port is its intra-node link, and on
// several nodes a GPU could also reach all of its node's NICs (more than it really can: the bound
// stays safe); a node's NICs carry at most per_node x bandwidth (oversubscription only lowers
// that, so it is left out). Shared memory: every message is a copy by some core, at most at the
// fastest level of the hierarchy, with at most min(cores, ranks) cores of each node copying at once.
CutBound linkBound(const Cluster& cluster, Collective collective, const Shape& shape, double bytes, bool reducesInSwitch) {
  const MinimumTraffic least = minimumTraffic(collective, shape, bytes, reducesInSwitch);
  const double nodeNicsGBps = cluster.nics.perNode * cluster.nics.bandwidthGBps;
  std::vector<CutBound> cuts;
  if (cluster.intra.kind == FabricKind::SharedMemory) {
    double coreGBps = cluster.intra.bandwidthGBps;
    for (const CacheLevel& level : cluster.intra.caches) coreGBps = std::max(coreGBps, level.bandwidthGBps);
    const int copying = shape.nodes * std::min(shape.perNode(), cluster.intra.cores);
    cuts.push_back({fmt::format("the copies of {} cores", copying), least.allRanks, copying * coreGBps});
  } else {
    cuts.push_back({"the busiest rank's port", least.busiestRank, cluster.intra.bandwidthGBps + (shape.nodes > 1 ? nodeNicsGBps : 0)});
  }
  if (shape.nodes > 1) cuts.push_back({"the busiest node's NICs", least.busiestNode, nodeNicsGBps});
  return *std::max_element(cuts.begin(), cuts.end(), [](const CutBound& a, const CutBound& b) { return a.us() < b.us(); });
}

// ---- The checks --------------------------------------------------------------------------------

using TimeOfSize = std::function<double(double bytes)>;

// What is wrong with one algorithm's times over the sweep's sizes (empty: nothing): each must be
// finite and positive, no smaller than the time of the size before, and no faster than the link
// bound.
std::vector<std::string> problemsWithTimes(const Cluster& cluster, Collective collective, const Shape& shape, bool reducesInSwitch,
                                           const TimeOfSize& timeUs) {
  std::vector<std::string> problems;
  double previousUs = 0, previousBytes = 0;
  for (double bytes : sweepSizes()) {
    const double us = timeUs(bytes);
    if (!std::isfinite(us) || us <= 0) {
      problems.push_back(fmt::format("{} bytes: {} us is not a finite positive time", bytes, us));
      continue;
    }
    if (us < previousUs * (1 - kRelativeTolerance)) {
      problems.push_back(fmt::format("{} bytes take {:.9g} us, less than the {:.9g} us of {} bytes", bytes, us, previousUs, previousBytes));
    }
    const CutBound bound = linkBound(cluster, collective, shape, bytes, reducesInSwitch);
    if (us < bound.us() * (1 - kRelativeTolerance)) {
      problems.push_back(fmt::format("{} bytes in {:.6g} us: {:.0f} bytes through {} at {:.4g} GB/s, over its line rate {:.4g} GB/s", bytes,
                                     us, bound.bytes, bound.cut, bound.bytes * 1e-3 / us, bound.gbps));
    }
    previousUs = us;
    previousBytes = bytes;
  }
  return problems;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += "\n  " + line;
  return text;
}

// ---- The sweep ---------------------------------------------------------------------------------

struct SweepShape {
  const char* preset;
  int nodes;
  int gpusPerNode;
};

// One node from 2 ranks up (odd counts too), one GPU per node, 2 to 2,048 nodes of 8 (16,384 GPUs,
// the simulator's largest) and nodes of an odd number of GPUs; the PCIe, workstation and CPU
// presets at their own sizes.
const std::vector<SweepShape>& sweepShapes() {
  struct NodesByGpus {
    int nodes, gpusPerNode;
  };
  struct PresetShapes {
    const char* preset;
    std::vector<NodesByGpus> shapes;
  };
  static const std::vector<SweepShape> all = [] {
    const std::vector<NodesByGpus> dgx = {{1, 2}, {1, 3}, {1, 5}, {1, 8},  {2, 1},   {16, 1},  {2, 8},
                                          {3, 8}, {3, 5}, {5, 3}, {16, 8}, {128, 8}, {2048, 8}};
    const PresetShapes presets[] = {
        {"dgx-a100", dgx},
        {"dgx-a100-40gb", {{1, 8}, {16, 8}}},  // dgx-a100's fabric: a smaller sweep
        {"dgx-h100", dgx},
        {"dgx-h200", {{1, 8}, {16, 8}}},  // dgx-h100's fabric: a smaller sweep
        {"dgx-2h", {{1, 3}, {1, 16}, {2, 16}, {32, 16}}},  // 16 GPUs a node, 2 per NIC
        {"jean-zay-a100", {{1, 8}, {2, 8}, {48, 8}}},      // dgx-a100's node, 2 GPUs per NIC
        {"a100-400g", {{2, 8}, {16, 1}, {16, 8}}},         // the same, on 100 Gb/s NICs
        {"h100-800g", {{2, 8}, {12, 8}}},                  // dgx-h100's node without NVLS, 4 GPUs per NIC
        {"ethernet-100g", {{2, 8}, {4, 8}, {3, 5}, {128, 8}}},
        {"h100-pcie-8", {{1, 2}, {1, 3}, {1, 8}, {2, 8}, {16, 8}, {2048, 8}}},
        {"workstation-4x-a40", {{1, 2}, {1, 3}, {1, 4}}},
        {"cpu-2core-amd-epyc", {{1, 2}, {1, 3}, {1, 4}, {1, 8}}},
        {"cpu-2core-amd-epyc-zen5", {{1, 2}, {1, 5}}},  // cpu-2core-amd-epyc's fabric: a smaller sweep
        {"cpu-2core-intel-xeon", {{1, 2}, {1, 3}, {1, 4}, {1, 8}}},
    };
    std::vector<SweepShape> shapes;
    for (const PresetShapes& preset : presets) {
      for (const NodesByGpus& shape : preset.shapes) shapes.push_back({preset.preset, shape.nodes, shape.gpusPerNode});
    }
    return shapes;
  }();
  return all;
}

struct AlgorithmCollective {
  const SimAlgorithm* algorithm;
  Collective collective;
};

// How gtest shows a failing case's parameters.
void PrintTo(const SweepShape& shape, std::ostream* os) { *os << shape.preset << " " << shape.nodes << "x" << shape.gpusPerNode; }
void PrintTo(const AlgorithmCollective& pair, std::ostream* os) { *os << pair.algorithm->name << " " << name(pair.collective); }

// Every (algorithm, collective) a planner accepts, as `auto` finds its candidates.
std::vector<AlgorithmCollective> supportedPairs(bool nvls) {
  std::vector<AlgorithmCollective> pairs;
  for (const SimAlgorithm& algorithm : simAlgorithms()) {
    if (algorithm.needsNvls != nvls) continue;
    for (Collective collective : allCollectives()) {
      Plan probe;
      if (algorithm.plan(collective, Shape{2, 1}, 1, probe)) pairs.push_back({&algorithm, collective});
    }
  }
  return pairs;
}

// Loading and reshaping a preset reads JSON: once per shape for the whole sweep.
const Predictor& predictorFor(const SweepShape& shape) {
  static std::map<std::tuple<std::string, int, int>, std::unique_ptr<Predictor>> predictors;
  auto& predictor = predictors[{shape.preset, shape.nodes, shape.gpusPerNode}];
  if (!predictor) {
    Cluster cluster = loadCluster(shape.preset);
    reshape(cluster, shape.nodes, shape.gpusPerNode);
    predictor = std::make_unique<Predictor>(cluster);
  }
  return *predictor;
}

std::vector<SweepShape> shapesWithNvls() {
  std::vector<SweepShape> shapes;
  for (const SweepShape& shape : sweepShapes()) {
    if (predictorFor(shape).cluster().intra.nvls) shapes.push_back(shape);
  }
  return shapes;
}

std::string identifier(std::string_view text) {
  std::string id(text);
  std::replace(id.begin(), id.end(), '-', '_');
  return id;
}

using SweepCase = std::tuple<SweepShape, AlgorithmCollective>;

std::string caseName(const testing::TestParamInfo<SweepCase>& info) {
  const auto& [shape, pair] = info.param;
  return fmt::format("{}_{}x{}_{}_{}", identifier(shape.preset), shape.nodes, shape.gpusPerNode, pair.algorithm->name,
                     name(pair.collective));
}

class AlgorithmSweep : public testing::TestWithParam<SweepCase> {};

TEST_P(AlgorithmSweep, TimesAreFinitePositiveMonotonicAndWithinTheLinks) {
  const auto& [sweepShape, pair] = GetParam();
  const Predictor& predictor = predictorFor(sweepShape);
  const Cluster& cluster = predictor.cluster();
  const Shape shape{cluster.gpus(), cluster.nodes};
  // A planner does the same collectives at every shape (auto's candidates are probed at 2 ranks).
  Plan plan;
  ASSERT_TRUE(pair.algorithm->plan(pair.collective, shape, 1, plan)) << "the planner refuses this shape";

  const TimeOfSize predictedUs = [&](double bytes) {
    const Prediction p = predictor.predict(Query{pair.collective, pair.algorithm->name, bytes, shape.ranks, shape.nodes, false, ""});
    EXPECT_EQ(p.algo, pair.algorithm->name) << "the predictor priced another algorithm";
    return p.timeUs;
  };
  const bool reducesInSwitch = pair.algorithm->needsNvls;  // NVLS: the all_reduce bound is S, not 2(n-1)/n S
  const std::vector<std::string> problems = problemsWithTimes(cluster, pair.collective, shape, reducesInSwitch, predictedUs);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, AlgorithmSweep,
                         testing::Combine(testing::ValuesIn(sweepShapes()), testing::ValuesIn(supportedPairs(false))), caseName);
INSTANTIATE_TEST_SUITE_P(NvlsAlgorithms, AlgorithmSweep,
                         testing::Combine(testing::ValuesIn(shapesWithNvls()), testing::ValuesIn(supportedPairs(true))), caseName);

// A planner that refuses a collective refuses it at every shape, so the sweep misses nothing.
TEST(AlgorithmSweepCoverage, EveryPresetIsSwept) {
  // A new preset gets shapes in sweepShapes() above, or this fails.
  for (const std::string& preset : presetNames()) {
    const bool swept = std::any_of(sweepShapes().begin(), sweepShapes().end(), [&](const SweepShape& s) { return s.preset == preset; });
    EXPECT_TRUE(swept) << preset << " has no shapes in sweepShapes()";
  }
}

TEST(AlgorithmSweepCoverage, PlannersRefuseTheSameCollectivesAtEveryShape) {
  for (const SimAlgorithm& algorithm : simAlgorithms()) {
    for (Collective collective : allCollectives()) {
      Plan probe;
      const bool atTwoRanks = algorithm.plan(collective, Shape{2, 1}, 1, probe);
      for (const SweepShape& sweepShape : sweepShapes()) {
        const Cluster& cluster = predictorFor(sweepShape).cluster();
        Plan plan;
        EXPECT_EQ(algorithm.plan(collective, Shape{cluster.gpus(), cluster.nodes}, 1, plan), atTwoRanks)
            << algorithm.name << " " << name(collective) << " on " << cluster.nodes << "x" << cluster.gpusPerNode;
      }
    }
  }
}

// ---- The checks can fail -----------------------------------------------------------------------

// Broken planners, priced as the predictor prices a plan, through the same checks.
bool ringLosingHalfItsBytesAbove1MiB(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (!planRing(c, s, bytes, plan)) return false;
  if (bytes <= 1 << 20) return true;
  for (int i = 0; i < plan.phaseCount; ++i) {
    Phase& phase = plan.phases[static_cast<std::size_t>(i)];
    for (int k = 0; k < phase.transferCount; ++k) phase.transfers[static_cast<std::size_t>(k)].bytes /= 2;
  }
  return true;
}

// Moves a 16th of the bytes from 1 GiB up: larger buffers come out cheaper.
bool ringShrinkingFrom1GiB(Collective c, const Shape& s, double bytes, Plan& plan) {
  return planRing(c, s, bytes >= 1 << 30 ? bytes / 16 : bytes, plan);
}

bool planWithNegativeSteps(Collective c, const Shape& s, double bytes, Plan& plan) {
  plan.addPhase().add({LinkClass::Intra, -100, bytes, s.ranks});
  return c == Collective::AllReduce;
}

bool planWithEndlessSteps(Collective c, const Shape& s, double bytes, Plan& plan) {
  plan.addPhase().add({LinkClass::Intra, std::numeric_limits<double>::infinity(), bytes, s.ranks});
  return c == Collective::AllReduce;
}

// Bruck as it was planned until this sweep: only the last log2(n) - log2(g) steps were counted
// across nodes, so on 3 nodes of 5 the NICs carried 2.5 S of the 3.33 S that must leave a node.
bool bruckCountingOnlyItsLastSteps(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (!planBruck(c, s, bytes, plan)) return false;
  const double steps = log2Ceil(s.ranks), interSteps = steps - std::min(steps, log2Ceil(s.perNode()));
  plan.phases[1].transfers[1].bytes = interSteps * bytes / 2 * s.perNode();
  return true;
}

std::vector<std::string> problemsOfPlanner(Planner planner, const SweepShape& sweepShape, Collective collective = Collective::AllReduce) {
  const Predictor& predictor = predictorFor(sweepShape);
  const Shape shape{predictor.cluster().gpus(), predictor.cluster().nodes};
  const TimeOfSize pricedUs = [&](double bytes) {
    Plan plan;
    planner(collective, shape, bytes, plan);
    return priceUs(plan, shape, predictor.pricing());
  };
  return problemsWithTimes(predictor.cluster(), collective, shape, false, pricedUs);
}

bool anyMentions(const std::vector<std::string>& problems, std::string_view text) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

// Problems name the size they are about first.
bool anyAbout(const std::vector<std::string>& problems, double bytes) {
  const std::string size = fmt::format("{} bytes ", bytes);
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.rfind(size, 0) == 0; });
}

TEST(AlgorithmSweepChecks, TheRealRingPasses) {
  EXPECT_TRUE(problemsOfPlanner(planRing, {"dgx-h100", 1, 8}).empty());
  EXPECT_TRUE(problemsOfPlanner(planRing, {"dgx-h100", 16, 8}).empty());
}

TEST(AlgorithmSweepChecks, CatchAPlanFasterThanTheLinks) {
  // Inside a node the busiest port binds; across nodes the NICs do.
  const auto inNode = problemsOfPlanner(ringLosingHalfItsBytesAbove1MiB, {"dgx-h100", 1, 8});
  EXPECT_TRUE(anyAbout(inNode, kLargestBytes)) << joined(inNode);
  EXPECT_TRUE(anyMentions(inNode, "the busiest rank's port")) << joined(inNode);
  EXPECT_FALSE(anyAbout(inNode, 1 << 20)) << "the ring is right up to 1 MiB" << joined(inNode);
  const auto acrossNodes = problemsOfPlanner(ringLosingHalfItsBytesAbove1MiB, {"dgx-h100", 16, 8});
  EXPECT_TRUE(anyMentions(acrossNodes, "the busiest node's NICs")) << joined(acrossNodes);
  const auto onCpu = problemsOfPlanner(ringShrinkingFrom1GiB, {"cpu-2core-amd-epyc", 1, 2});
  EXPECT_TRUE(anyMentions(onCpu, "the copies of 2 cores")) << joined(onCpu);
}

TEST(AlgorithmSweepChecks, CatchATimeThatFallsAsTheSizeGrows) {
  const auto problems = problemsOfPlanner(ringShrinkingFrom1GiB, {"dgx-a100", 1, 8});
  EXPECT_TRUE(anyMentions(problems, "1073741824 bytes take")) << joined(problems);
}

TEST(AlgorithmSweepChecks, CatchBruckAsItWasAcrossNodes) {
  const SweepShape threeNodesOfFive{"dgx-a100", 3, 5};
  const auto problems = problemsOfPlanner(bruckCountingOnlyItsLastSteps, threeNodesOfFive, Collective::AllToAll);
  EXPECT_TRUE(anyMentions(problems, "the busiest node's NICs")) << joined(problems);
  EXPECT_TRUE(problemsOfPlanner(planBruck, threeNodesOfFive, Collective::AllToAll).empty());
}

TEST(AlgorithmSweepChecks, CatchNegativeAndInfiniteTimes) {
  EXPECT_TRUE(anyMentions(problemsOfPlanner(planWithNegativeSteps, {"dgx-a100", 1, 8}), "not a finite positive time"));
  EXPECT_TRUE(anyMentions(problemsOfPlanner(planWithEndlessSteps, {"dgx-a100", 1, 8}), "inf us is not a finite positive time"));
}

}  // namespace
}  // namespace cclab::sim
