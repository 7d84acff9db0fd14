// Hierarchical (as Horovod and NCCL do across nodes). all_reduce: a ring reduce-scatter inside
// each node, then every GPU all-reduces its 1/g shard with its peers on the other nodes (a ring
// over p, all g GPUs of a node at once through the node's NICs), then a ring all-gather inside
// the node. all_gather: inter-node ring first, then intra-node; reduce_scatter: the reverse.
//
// Nodes emulated on one host (Shape::emulatedPerNode, ccbench --ranks-per-node) group the ranks
// the same way, but their "across nodes" ring runs over the host's own links: each rank carries
// its own shard through its own port instead of the node's shards sharing its NICs.

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
  const int n = s.ranks, g = s.groupRanks(), p = n / g;
  const double gShare = static_cast<double>(g - 1) / g, pShare = static_cast<double>(p - 1) / p;
  // The ring across groups. Real nodes: each GPU's shard is bytes/g and a node's shards together
  // leave through its NICs (bytes per node; more where emulated groups are smaller than a node).
  // Groups emulated on one host: each rank's own shard through its own port.
  const bool acrossHosts = s.nodes > 1;
  const LinkClass across = acrossHosts ? LinkClass::Inter : LinkClass::Intra;
  const double acrossBytes = acrossHosts ? bytes * s.perNode() / g : bytes / g;
  switch (c) {
    case Collective::AllReduce: {
      Phase& rs = plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      rs.reduceBytes = gShare * bytes;
      Phase& ar = plan.addPhase().add(ringTransfer(across, p, 2, acrossBytes, n));
      ar.reduceBytes = pShare * bytes / g;
      plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      return true;
    }
    case Collective::AllGather:
      plan.addPhase().add(ringTransfer(across, p, 1, acrossBytes, n));
      plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      return true;
    case Collective::ReduceScatter: {
      Phase& intra = plan.addPhase().add(ringTransfer(LinkClass::Intra, g, 1, bytes, n));
      intra.reduceBytes = gShare * bytes;
      Phase& inter = plan.addPhase().add(ringTransfer(across, p, 1, acrossBytes, n));
      inter.reduceBytes = pShare * bytes / g;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cclab::sim
