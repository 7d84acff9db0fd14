// Pairwise-exchange alltoall: n-1 steps, one peer each. A rank's blocks for the g-1 peers on its
// node use its intra port; the blocks of all g ranks for the n-g peers elsewhere leave through
// the node's NICs.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planPairwise(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::AllToAll) return false;
  const int n = s.ranks, g = s.perNode();
  const double block = bytes / n;
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, static_cast<double>(g - 1), (g - 1) * block, n};
  intra.allPairs = true;
  phase.add(intra);
  Transfer inter{LinkClass::Inter, static_cast<double>(n - g), static_cast<double>(g) * (n - g) * block, n};
  inter.allPairs = true;
  phase.add(inter);
  return true;
}

}  // namespace cclab::sim
