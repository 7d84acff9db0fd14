// NVLS (NVLink SHARP): the NVSwitch reduces and multicasts. all_reduce inside a node: each GPU
// pushes its buffer into the switch and pulls the reduced result back, about S through its port
// each way whatever n is, in two latency steps; no GPU reduces. reduce_scatter / all_gather:
// (n-1)/n of the buffer through the port in one step. Across nodes NVLS runs inside each node
// around an inter-node ring on 1/g shards, like the hierarchical algorithm.

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {
namespace {

Transfer nvlsTransfer(double steps, double bytes, int copiers) {
  Transfer t{LinkClass::Intra, steps, bytes, copiers};
  t.nvls = true;
  return t;
}

}  // namespace

bool planNvls(Collective c, const Shape& s, double bytes, Plan& plan) {
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double gShare = static_cast<double>(g - 1) / g, pShare = static_cast<double>(p - 1) / p;
  switch (c) {
    case Collective::AllReduce:
      if (p == 1) {
        plan.addPhase().add(nvlsTransfer(2, bytes, n));
        return true;
      }
      plan.addPhase().add(nvlsTransfer(1, gShare * bytes, n));
      plan.addPhase().add({LinkClass::Inter, 2.0 * (p - 1), 2 * pShare * bytes, n}).reduceBytes = pShare * bytes / g;
      plan.addPhase().add(nvlsTransfer(1, gShare * bytes, n));
      return true;
    case Collective::ReduceScatter:
    case Collective::AllGather: {
      if (c == Collective::AllGather && p > 1) plan.addPhase().add({LinkClass::Inter, static_cast<double>(p - 1), pShare * bytes, n});
      plan.addPhase().add(nvlsTransfer(1, gShare * bytes, n));
      if (c == Collective::ReduceScatter && p > 1) {
        plan.addPhase().add({LinkClass::Inter, static_cast<double>(p - 1), pShare * bytes, n}).reduceBytes = pShare * bytes / g;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cclab::sim
