// Recursive doubling all_reduce: log2(n) steps in which partners at distance 1, 2, 4, ... swap
// and reduce the whole buffer. Latency-optimal, but every step moves all S bytes. Steps with
// partners on other nodes (the last log2(p)) send every rank's buffer through the NICs. A rank
// count that is not a power of two folds to the power of two below it (pof2): one exchange in,
// log2(pof2) steps, one exchange out (cclab's recursive_fold.h, as MPICH).

#include <algorithm>

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planRd(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::AllReduce) return false;
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double interSteps = log2Ceil(p), intraSteps = std::max(0.0, log2Floor(n) - interSteps);
  Phase& phase = plan.addPhase();
  // Copiers: after folding, only pof2 ranks exchange (the others wait for the result).
  Transfer intra{LinkClass::Intra, intraSteps, intraSteps * bytes, powerOfTwoBelow(n)};
  intra.allPairs = true;  // partners far apart: on PCIe they share switch uplinks
  if (!isPowerOfTwo(n)) {  // fold the extra ranks in and out: one more exchange each way
    intra.steps += 2;
    intra.bytes += 2 * bytes;
  }
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, interSteps, interSteps * bytes * g, n});
  phase.reduceBytes = (log2Floor(n) + (isPowerOfTwo(n) ? 0 : 1)) * bytes;
  return true;
}

}  // namespace cclab::sim
