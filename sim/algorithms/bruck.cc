// Bruck alltoall: log2(n) steps; in step k every rank sends the blocks whose index has bit k set
// (about half of its buffer) to the rank 2^k away, plus a local rotation of the whole buffer
// before and after. Fewer, larger messages than pairwise: it wins on latency, loses on bytes.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planBruck(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::AllToAll) return false;
  const int n = s.ranks, g = s.perNode();
  const double steps = log2Ceil(n), intraSteps = std::min(steps, log2Ceil(g)), interSteps = steps - intraSteps;
  Phase& rotate = plan.addPhase();
  rotate.add({LinkClass::Local, 0, 2 * bytes, n});
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, intraSteps, intraSteps * bytes / 2, n};
  intra.allPairs = true;
  phase.add(intra);
  phase.add({LinkClass::Inter, interSteps, interSteps * bytes / 2 * g, n});
  return true;
}

}  // namespace cclab::sim
