// Linear gather / scatter: every block goes straight to (from) the root at once. The root's port
// carries (n-1)/n of the buffer; the blocks of other nodes pass the root node's NICs. In a gather
// the root does the copying (one copier); in a scatter every rank takes part.
// Linear alltoall and all_gather: every rank posts all its messages at once, one block of S/n to
// each other rank - the pairwise exchange's messages and bytes in both (the all_gather's block is
// the same to every peer; across nodes each goes to each remote rank, g(n-g)S/n through a node's
// NICs, not the ring's (n-1)/n S). Each rank still takes its g - 1 messages one after another;
// what differs from pairwise is that no message waits for its peer's previous step, which only a
// measurement shows, in the group's own fitted latency. The linear (one-shot) all_reduce sends the
// whole buffer to every other rank the same way and reduces the n - 1 it receives; the linear
// reduce_scatter sends each peer its block (the alltoall's messages) and reduces the n - 1 blocks
// it receives.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planLinear(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c == Collective::AllToAll || c == Collective::AllGather) return planPairwise(Collective::AllToAll, s, bytes, plan);
  if (c == Collective::AllReduce) {
    // Every rank's whole buffer to every other rank: an alltoall's messages with blocks of S, and
    // n - 1 buffers reduced.
    if (!planPairwise(Collective::AllToAll, s, bytes * s.ranks, plan)) return false;
    plan.phases[0].reduceBytes = (s.ranks - 1) * bytes;
    plan.phases[0].transfers[0].freshShare = 1;  // every rank sends the copy of its input it made in this call
    return true;
  }
  if (c == Collective::ReduceScatter) {
    if (!planPairwise(Collective::AllToAll, s, bytes, plan)) return false;
    plan.phases[0].reduceBytes = static_cast<double>(s.ranks - 1) / s.ranks * bytes;
    return true;
  }
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
  // Two copies a message: a scatter's root writes every block itself, one after another.
  if (c == Collective::Scatter) intra.critical.twoCopyWriter = static_cast<double>(g - 1) / n * bytes;
  phase.add(intra);
  if (p > 1) {
    Transfer inter{LinkClass::Inter, 1, static_cast<double>(n - g) / n * bytes, copiers};
    inter.allPairs = true;
    phase.add(inter);
  }
  return true;
}

}  // namespace cclab::sim
