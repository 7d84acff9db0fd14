// Bruck's algorithms: ceil(log2 n) steps for any rank count. all_gather: see planBruck.
// alltoall: log2(n) steps; in step k every rank sends the blocks whose index has bit k set (half
// of its buffer at a power of two, less otherwise) to the rank 2^k away, plus a local rotation of
// the whole buffer before and after. Fewer, larger messages than pairwise: it wins on latency,
// loses on bytes. Ranks are numbered node by node and partners are r + 2^k mod n, so across nodes
// every step has ranks whose partner is on another node (the last 2^k of each node when 2^k < g):
// every step waits for the network, and the node's NICs carry the blocks of all of those ranks.

#include "sim/algorithms/algorithms.h"

#include <algorithm>

namespace cclab::sim {
namespace {

// Of a node's g ranks (each full node alike), those whose partner `distance` ahead (mod n) is on
// another node: all but the ranks r < g - distance, and those that wrap round to r + distance - n < g.
int ranksLeavingTheNode(int n, int g, int distance) {
  const int staying = std::max(0, g - distance) + std::max(0, g - std::max(0, n - distance));
  return g - staying;
}

// How many of the indices 1..n-1 have the bit `distance` set: Bruck's alltoall sends those blocks
// in that step (whole periods of 2 * distance hold `distance` each, then the tail's part).
int blocksWithBit(int n, int distance) {
  return n / (2 * distance) * distance + std::max(0, n % (2 * distance) - distance);
}

}  // namespace

bool planBruck(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::AllToAll && c != Collective::AllGather) return false;
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double steps = log2Ceil(n);
  if (c == Collective::AllGather) {
    // all_gather: in the step at distance d every rank sends min(d, n-d) blocks (of bytes/n) to
    // rank r-d, (n-1)/n of the output in all; then one local rotation of the whole output.
    const double block = bytes / n;
    double intraBytes = 0, interBytes = 0;
    for (int distance = 1; distance < n; distance *= 2) {
      const double moved = std::min(distance, n - distance) * block;
      const int leaving = p > 1 ? ranksLeavingTheNode(n, g, distance) : 0;
      if (leaving < g) intraBytes += moved;  // some rank of the node still sends inside it
      interBytes += leaving * moved;
    }
    Phase& phase = plan.addPhase();
    Transfer intra{LinkClass::Intra, p > 1 ? 0.0 : steps, intraBytes, n};
    intra.allPairs = true;
    intra.freshShare = 1;  // every step sends out of the buffer this call gathers into
    phase.add(intra);
    if (p > 1) phase.add({LinkClass::Inter, steps, interBytes, n});
    plan.addPhase().add({LinkClass::Local, 0, bytes, n});
    return true;
  }
  // In the step at distance d a rank sends the blocks whose index (1..n-1) has bit d set: half
  // the buffer at a power of two, less otherwise (3 ranks: 1 block of 3 each step).
  double intraBytes = 0, interBytes = 0;
  for (int distance = 1; distance < n; distance *= 2) {
    const double moved = blocksWithBit(n, distance) * bytes / n;
    // The busiest port: a node's first rank, whose partner is on its node while distance < g.
    if (distance < g) intraBytes += moved;
    if (p > 1) interBytes += ranksLeavingTheNode(n, g, distance) * moved;
  }
  plan.addPhase().add({LinkClass::Local, 0, 2 * bytes, n});  // the rotations in and out
  Phase& phase = plan.addPhase();
  Transfer intra{LinkClass::Intra, p > 1 ? 0.0 : steps, intraBytes, n};
  intra.allPairs = true;
  intra.freshShare = 1;  // every step sends out of the rotated copy this call made
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, steps, interBytes, n});
  return true;
}

}  // namespace cclab::sim
