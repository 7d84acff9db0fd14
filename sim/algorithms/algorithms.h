#pragma once

// The algorithms the simulator models, one file each, and the table `--algo` chooses from.
// A planner fills the plan of one collective of `bytes` (the size column: the larger buffer) on a
// shape, or returns false when the algorithm does not do that collective.

#include <algorithm>
#include <bit>
#include <span>
#include <string_view>

#include "sim/plan.h"

namespace cclab::sim {

using Planner = bool (*)(Collective collective, const Shape& shape, double bytes, Plan& plan);

struct SimAlgorithm {
  std::string_view name;
  Planner plan;
  bool needsNvls = false;
  std::string_view summary;
};

std::span<const SimAlgorithm> simAlgorithms();
const SimAlgorithm* findSimAlgorithm(std::string_view name);

bool planRing(Collective c, const Shape& s, double bytes, Plan& plan);
bool planChain(Collective c, const Shape& s, double bytes, Plan& plan);
bool planPairwise(Collective c, const Shape& s, double bytes, Plan& plan);
bool planLinear(Collective c, const Shape& s, double bytes, Plan& plan);
bool planTree(Collective c, const Shape& s, double bytes, Plan& plan);
bool planRhd(Collective c, const Shape& s, double bytes, Plan& plan);
bool planRd(Collective c, const Shape& s, double bytes, Plan& plan);
bool planBruck(Collective c, const Shape& s, double bytes, Plan& plan);
bool planHier(Collective c, const Shape& s, double bytes, Plan& plan);
bool planNvls(Collective c, const Shape& s, double bytes, Plan& plan);

// Helpers shared by the planners.
inline double log2Ceil(int n) {
  int steps = 0;
  while ((1 << steps) < n) ++steps;
  return steps;
}
inline bool isPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }
// The largest power of two <= n, and its log: the ranks left after folding (MPICH's pof2; the
// algorithms' Fold::pof2() in collectives/algorithms/recursive_fold.h).
inline int powerOfTwoBelow(int n) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(n))); }
inline double log2Floor(int n) { return log2Ceil(powerOfTwoBelow(n)); }

// Of `steps` equal steps in sequence whose first reads an input and the rest what the call wrote
// (Transfer::freshShare): the share after the first.
inline double afterTheFirst(double steps) { return steps > 1 ? (steps - 1) / steps : 0.0; }
// Shared memory: the most load any core carries when rank r runs on core r mod `cores` (mpirun
// --map-by core), `loadOf(rank)` each rank's part.
template <typename LoadOf>
double busiestCoreLoad(int ranks, int cores, LoadOf loadOf) {
  const int c = std::max(1, std::min(cores, ranks));
  double busiest = 0;
  for (int core = 0; core < c; ++core) {
    double load = 0;
    for (int rank = core; rank < ranks; rank += c) load += loadOf(rank);
    busiest = std::max(busiest, load);
  }
  return busiest;
}

}  // namespace cclab::sim
