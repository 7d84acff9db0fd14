// Pipelined chain: broadcast flows root -> root+1 -> ... and reduce flows into the root. Chunks
// keep every hop busy, so a large message costs one buffer's transfer per port plus a latency
// per hop.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planChain(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::Broadcast && c != Collective::Reduce) return false;
  const int n = s.ranks, p = s.nodes;
  Phase& phase = plan.addPhase();
  phase.add({LinkClass::Intra, static_cast<double>(n - p), bytes, n});
  if (p > 1) phase.add({LinkClass::Inter, static_cast<double>(p - 1), bytes, n});
  if (c == Collective::Reduce) phase.reduceBytes = bytes;
  return true;
}

}  // namespace cclab::sim
