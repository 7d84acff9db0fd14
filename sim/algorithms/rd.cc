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
  const int pof2 = powerOfTwoBelow(n);
  Phase& phase = plan.addPhase();
  // Copiers: after folding, only pof2 ranks exchange (the others wait for the result).
  Transfer intra{LinkClass::Intra, intraSteps, intraSteps * bytes, pof2};
  intra.allPairs = true;  // partners far apart: on PCIe they share switch uplinks
  intra.waitingRanks = n - pof2;  // the ranks folded out wait beside them (Transfer::waitingRanks)
  // The first exchange sends the input, the later ones this call's partial results; folded, a
  // standing-in rank's first exchange sends a partial result too, and its partner waits for it.
  intra.freshShare = isPowerOfTwo(n) ? afterTheFirst(intraSteps) : 1.0;
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, interSteps, interSteps * bytes * g, n});
  phase.reduceBytes = log2Floor(n) * bytes;
  if (!isPowerOfTwo(n)) {
    // Fold the extra ranks in and out: the whole buffer one way each time, n - pof2 pairs at once
    // (their own phase: the other ranks wait, and a shared GPU queues only those copies).
    Transfer fold{LinkClass::Intra, 2, 2 * bytes, n - pof2};
    fold.oneWay = true;
    fold.freshShare = 0.5;  // in: the extra rank's input; out: the result
    plan.addPhase().add(fold).reduceBytes = bytes;
  }
  return true;
}

}  // namespace cclab::sim
