#pragma once

// Predicts the time of one collective call: resolves the algorithm (a simulator algorithm, the
// ring family, `auto` or a library's `native` choice), plans it, applies the calibration fitted
// for that implementation and algorithm if the cluster holds one, and prices it.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/pricing.h"

namespace cclab::sim {

// `--algo auto` in ccsim: price every candidate algorithm and take the fastest (the row then names
// the one picked). The same word in a measured row means a library's tuner chose
// (kLibraryTunerChose); such rows are predicted with the library's calibration where there is one.
inline constexpr std::string_view kSimulatorPicks = "auto";

struct Query {
  Collective collective = Collective::AllReduce;
  std::string_view algo = kSimulatorPicks;  // a simulator algorithm, the "ring" family, kSimulatorPicks, or a library's label
  double bytes = 0;                   // the size column: the larger of the send and receive buffers
  int ranks = 1;
  int nodes = 1;
  bool inPlace = false;
  std::string_view implementation;  // whose calibration applies ("" : the cluster's own numbers)
  int perDevice = 1;                // processes sharing one GPU (Shape::perDevice)
  int emulatedPerNode = 0;          // nodes emulated on one host (Shape::emulatedPerNode)
};

struct Prediction {
  double timeUs = 0;
  std::string algo;        // the algorithm that was priced (for auto: the one it picked)
  bool calibrated = false; // a calibration entry priced it
};

class Predictor {
 public:
  explicit Predictor(const Cluster& cluster);

  // Throws InputError for an algorithm that does not exist, does not do the collective, or needs
  // what the cluster lacks (NVLS), and for a shape the cluster cannot hold.
  Prediction predict(const Query& query) const;

  // The algorithm names `query.algo` may resolve to for a collective ("ring" -> "chain" for broadcast).
  std::string resolve(Collective collective, std::string_view algo) const;
  // Every algorithm that can run the collective on this cluster (auto's candidates).
  std::vector<std::string_view> candidates(Collective collective) const;
  // Those a library's own choice picks among where no calibration of it prices the call: on GPUs
  // NCCL's (ring and, for all_reduce, the double binary tree; NVLS where the cluster has it; the
  // chain NCCL's ring broadcast and reduce are; alltoall, gather and scatter as the grouped sends
  // they are); on a CPU's shared memory every candidate, as MPI libraries' tuned collectives have them.
  std::vector<std::string_view> libraryCandidates(Collective collective) const;
  // cclab's own algorithms for the collective, the registry's (collectives/algorithms): what
  // auto picks among for cclab's implementation (--impl cclab), as ccbench --algo auto does,
  // each priced with its own calibration. (The simulator's chain reduce is cclab's ring reduce.)
  std::vector<std::string_view> ownCandidates(Collective collective) const;
  // The plan of a resolved algorithm (for calibration and tests). `ownCopies`: cclab's
  // implementation ran it (kOwnBackend), so its device copies are planned too (inputCopies);
  // false for the algorithm itself (no implementation). A library's choice (isLibraryChoice) is
  // priced on the ring family's plan, without copies, its flows spread evenly over the cores.
  Plan plan(Collective collective, std::string_view algo, const Shape& shape, double bytes, bool inPlace, bool ownCopies) const;

  const Pricing& pricing() const { return base_; }
  // The pricing of a calibration entry on this cluster's shape (null: the description's own) for
  // a call of `collective` (Pricing::forCollective: a rooted call's single-copy threshold) by
  // `implementation` (the entry's where there is one): nothing packed but for cclab's own, whose
  // transport packs (IntraNode::packedMaxBytes), or for no implementation named.
  Pricing pricingFor(const Calibration* entry, Collective collective, std::string_view implementation = {}) const;
  const Cluster& cluster() const { return cluster_; }

 private:
  const Calibration* calibration(std::string_view implementation, Collective collective, std::string_view algo,
                                 bool inPlace) const;
  double timeOf(Collective collective, std::string_view algo, const Shape& shape, const Query& query, bool& calibrated) const;

  Cluster cluster_;
  Pricing base_;
};

// The device copies cclab's `algo` makes of its data in one placement (InputCopies in
// collectives/algorithms/algorithms.h) as a transfer on the local link: one step per copy, the
// bytes one rank copies, every rank copying. No steps and no bytes where it makes none.
Transfer inputCopies(Collective collective, std::string_view algo, const Shape& shape, double bytes, bool inPlace);

// Whose traffic shares a reshaped node's NICs. Alone: the shape's ranks are the only ones on
// their nodes using the network (a collective measured on part of each node). EveryGpuAtOnce:
// every GPU of a node runs a collective of its own group at the same time (a training step's
// HYBRID_SHARD replica groups, or data-parallel groups beside tensor parallelism), so a group of
// r ranks a node gets r GPUs' share of the node's NICs: one rank a node on a NIC shared by two
// GPUs gets half its bandwidth, not the whole NIC it would have alone.
enum class NicSharing { Alone, EveryGpuAtOnce };

// Predictors for one cluster reshaped to each placement measured rows ran on (for calibration
// and validation, which see many rank counts).
class PredictorsByShape {
 public:
  explicit PredictorsByShape(const Cluster& cluster, NicSharing sharing = NicSharing::Alone) : cluster_(cluster), sharing_(sharing) {}
  const Predictor& forShape(const Shape& shape);

 private:
  const Cluster& cluster_;
  NicSharing sharing_;
  std::map<std::pair<int, int>, Predictor> byShape_;  // (nodes, ranks per node)
};

// Library-chosen algorithms in results rows: kLibraryCollective (an MPI library's own) and
// kLibraryTunerChose (NCCL), collectives/vocabulary.h.
bool isLibraryChoice(std::string_view algo);

}  // namespace cclab::sim
