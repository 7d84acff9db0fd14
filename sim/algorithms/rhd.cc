// Recursive halving-doubling. all_reduce (Rabenseifner): a reduce-scatter by recursive halving
// (partners at distance n/2, n/4, ..., exchanging half of what is left each time) then an
// all-gather by recursive doubling (the same steps backwards): 2 log2(n) steps, 2(n-1)/n of the
// buffer per rank. reduce_scatter and all_gather are the two halves. Ranks are numbered node by
// node, so the steps with partners at distance >= g cross nodes: for the halving these are the
// first log2(p) steps, which move S(1 - 1/p) per rank; every rank of a node sends at once.
// Rank counts that are not a power of two fold to the power of two below them (pof2, as MPICH
// and cclab's recursive_fold.h): an exchange in and one out, which carry the whole buffer each
// way for all_reduce, and the whole buffer one way (plus a block the other) for either half.

#include <algorithm>

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {

bool planRhd(Collective c, const Shape& s, double bytes, Plan& plan) {
  double halves = 0;  // 2 for all_reduce (halving then doubling), 1 for either half
  switch (c) {
    case Collective::AllReduce: halves = 2; break;
    case Collective::ReduceScatter:
    case Collective::AllGather: halves = 1; break;
    default: return false;
  }
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const int pof2 = powerOfTwoBelow(n);
  const double interSteps = log2Ceil(p), intraSteps = std::max(0.0, log2Floor(n) - interSteps);
  const double interPerRank = bytes * (1.0 - 1.0 / p);                     // the first log2(p) halvings
  const double intraPerRank = std::max(0.0, bytes / p - bytes / pof2);  // the rest, inside the node
  Phase& phase = plan.addPhase();
  // Copiers: after folding, only pof2 ranks exchange (the others wait for the result).
  Transfer intra{LinkClass::Intra, halves * intraSteps, halves * intraPerRank, pof2};
  intra.allPairs = true;  // partners far apart: on PCIe they share switch uplinks
  intra.waitingRanks = n - pof2;  // the ranks folded out wait beside them (Transfer::waitingRanks)
  // The first halving sends half of the input (S/2 of the bytes), every later step this call's
  // partial sums or gathered blocks; the all-gather sends out of the output it copied its block
  // into; folded, a standing-in rank's first half is a partial sum too.
  // (Across nodes the first halvings are the inter-node ones: every intra step is fresh.)
  const bool firstHalvesInput = c != Collective::AllGather && isPowerOfTwo(n) && p == 1 && intraPerRank > 0;
  intra.freshShare = firstHalvesInput ? 1.0 - 0.5 * bytes / (halves * intraPerRank) : 1.0;
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, halves * interSteps, halves * interPerRank * g, n});
  if (c != Collective::AllGather) phase.reduceBytes = static_cast<double>(n - 1) / n * bytes;
  if (!isPowerOfTwo(n)) {
    // Fold the extra ranks in and out, n - pof2 pairs at once (their own phase, as rd's).
    Transfer fold{LinkClass::Intra, 2, c == Collective::AllReduce ? 2 * bytes : bytes + bytes / n, n - pof2};
    fold.oneWay = true;
    // In: the extra rank's input (its block, in an all-gather); out: what the call made.
    fold.freshShare = c == Collective::AllReduce ? 0.5 : c == Collective::ReduceScatter ? 1.0 / (n + 1) : n / (n + 1.0);
    // The standing-in rank reduces the extra rank's whole buffer as it folds in (all_reduce and
    // reduce_scatter; recursive_fold.cc), as rd's fold does.
    Phase& folding = plan.addPhase().add(fold);
    folding.reduceBytes = c == Collective::AllGather ? 0.0 : bytes;
    // all_reduce's fold is rd's code and rd's work per byte (a whole buffer in, reduced, and out):
    // calibrated, its bytes are priced at rd's fitted bandwidths (Phase::bandwidthFitOf). Measured
    // on cclab's shared memory it adds the same to both from 2 to 3 ranks (8 MiB: rd 1,907 us,
    // rhd 1,847), where rhd's own fit, from the half-buffer exchanges of 2 and 4 ranks, priced it
    // 40% faster than rd's.
    if (c == Collective::AllReduce) folding.bandwidthFitOf = "rd";
    // all_gather's and reduce_scatter's fold sends a block one way and the result the other, its
    // bytes rhd's own; its messages are rd's fold's, one rank sending while the other waits, which
    // the 2- and 4-rank fit of rhd's exchanges never prices: calibrated, at rd's fitted latencies.
    else folding.latencyFitOf = "rd";
  }
  return true;
}

}  // namespace cclab::sim
