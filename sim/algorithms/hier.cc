// Hierarchical (as Horovod and NCCL do across nodes). all_reduce: a ring reduce-scatter inside
// each node, then every GPU all-reduces its 1/g shard with its peers on the other nodes (a ring
// over p, all g GPUs of a node at once through the node's NICs), then a ring all-gather inside
// the node. all_gather: inter-node ring first, then intra-node; reduce_scatter: the reverse.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {
namespace {

// A ring of `members` ranks moving `rounds` x (members-1)/members of `bytes` on one link class.
Transfer ringTransfer(LinkClass link, int members, double rounds, double bytes, int copiers) {
  const double share = static_cast<double>(members - 1) / members;
  return Transfer{link, rounds * (members - 1), rounds * share * bytes, copiers};
}

}  // namespace

bool planHier(Collective c, const Shape& s, double bytes, Plan& plan) {
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double gShare = static_cast<double>(g - 1) / g, pShare = static_cast<double>(p - 1) / p;
  switch (c) {
    case Collective::AllReduce: {
      Phase& rs = plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      rs.reduceBytes = gShare * bytes;
      // Each GPU's shard is bytes/g; the node's g shards together leave through its NICs.
      Phase& ar = plan.addPhase().add(ringTransfer(LinkClass::Inter, p, 2, bytes, n));
      ar.reduceBytes = pShare * bytes / g;
      plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      return true;
    }
    case Collective::AllGather:
      plan.addPhase().add(ringTransfer(LinkClass::Inter, p, 1, bytes, n));
      plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      return true;
    case Collective::ReduceScatter: {
      Phase& intra = plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      intra.reduceBytes = gShare * bytes;
      Phase& inter = plan.addPhase().add(ringTransfer(LinkClass::Inter, p, 1, bytes, n));
      inter.reduceBytes = pShare * bytes / g;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cclab::sim
