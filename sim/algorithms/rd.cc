// Recursive doubling all_reduce: log2(n) steps in which partners at distance 1, 2, 4, ... swap
// and reduce the whole buffer. Latency-optimal, but every step moves all S bytes. Steps with
// partners on other nodes (the last log2(p)) send every rank's buffer through the NICs.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planRd(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::AllReduce) return false;
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double interSteps = log2Ceil(p), intraSteps = log2Ceil(n) - interSteps;
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, intraSteps, intraSteps * bytes, n};
  intra.allPairs = true;  // partners far apart: on PCIe they share switch uplinks
  if (!isPowerOfTwo(n)) {  // fold the extra ranks in and out: one more exchange each way
    intra.steps += 2;
    intra.bytes += 2 * bytes;
  }
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, interSteps, interSteps * bytes * g, n});
  phase.reduceBytes = log2Ceil(n) * bytes;
  return true;
}

}  // namespace cclab::sim
