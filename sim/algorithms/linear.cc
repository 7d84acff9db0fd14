// Linear gather / scatter: every block goes straight to (from) the root at once. The root's port
// carries (n-1)/n of the buffer; the blocks of other nodes pass the root node's NICs. In a gather
// the root does the copying (one copier); in a scatter every rank takes part.
// Linear alltoall: every rank posts all its messages at once. Its bytes and its messages are the
// pairwise exchange's (each rank still takes its g - 1 messages one after another), so the plan is
// that one: what differs is that no message waits for its peer's previous step, which only a
// measurement shows, in the group's own fitted latency.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planLinear(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c == Collective::AllToAll) return planPairwise(c, s, bytes, plan);
  if (c != Collective::Gather && c != Collective::Scatter) return false;
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double f = static_cast<double>(n - 1) / n;
  const int copiers = c == Collective::Gather ? 1 : n;
  // The gathering root takes its g - 1 messages one after another; a scatter's receivers each
  // take one, at once.
  const double intraSteps = c == Collective::Gather ? g - 1 : 1;
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, intraSteps, f * bytes, copiers};
  intra.allPairs = true;
  phase.add(intra);
  if (p > 1) {
    Transfer inter{LinkClass::Inter, 1, static_cast<double>(n - g) / n * bytes, copiers};
    inter.allPairs = true;
    phase.add(inter);
  }
  return true;
}

}  // namespace cclab::sim
