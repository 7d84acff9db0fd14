// Ring: all_reduce (reduce-scatter + all-gather), all_gather, reduce_scatter, the ring sendrecv,
// and reduce (partial sums around the ring into the root: the chain's plan).
// Across nodes the ring leaves every node once per channel; NCCL runs one ring per NIC, so the
// bytes a full ring moves per rank leave each node through all of its NICs together, and a rank's
// intra-node port carries the (g-1)/g of its traffic whose next hop is on the same node.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planRing(Collective c, const Shape& s, double bytes, Plan& plan) {
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double f = static_cast<double>(n - 1) / n;
  const double intraShare = p > 1 ? static_cast<double>(g - 1) / g : 1.0;
  double rounds = 0;  // how many times the data goes around: 2 for all_reduce, 1 for its halves
  switch (c) {
    case Collective::AllReduce: rounds = 2; break;
    case Collective::AllGather:
    case Collective::ReduceScatter: rounds = 1; break;
    case Collective::Reduce:
      // cclab's ring reduce: partial sums travel around the ring into the root - a chain.
      return planChain(c, s, bytes, plan);
    case Collective::SendRecv: {
      // Every rank sends its whole buffer to the next; one edge per node leaves the node.
      Phase& phase = plan.addPhase();
      phase.add({LinkClass::Intra, (g > 1 || p == 1) ? 1.0 : 0.0, bytes * intraShare, n});
      if (p > 1) phase.add({LinkClass::Inter, 1, bytes, n});
      return true;
    }
    default: return false;
  }
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, rounds * (n - p), rounds * f * bytes * intraShare, n};
  // Step 0 sends this rank's input (segment or block), every later step what it received or
  // reduced in this call.
  intra.freshShare = afterTheFirst(rounds * (n - 1));
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, rounds * (p - 1), rounds * f * bytes, n});
  if (c != Collective::AllGather) phase.reduceBytes = f * bytes;
  return true;
}

}  // namespace cclab::sim
