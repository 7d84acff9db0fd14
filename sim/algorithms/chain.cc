// Pipelined chain: broadcast flows root -> root+1 -> ... and reduce flows into the root. The
// buffer is cut into k chunks of cclab's pipeline chunk (Context::kDefaultChunkBytes) that keep
// every hop busy: the last rank has the last chunk after k + n - 2 chunk-steps, so the critical
// path carries S + (n - 2) chunks (a large message: one buffer's transfer per port; one no larger
// than a chunk: the whole buffer n - 1 times).

#include <algorithm>
#include <cmath>

#include "collectives/context.h"
#include "sim/algorithms/algorithms.h"

namespace cclab::sim {
namespace {

// The busiest core's share of a chain's message ends, ranks placed round-robin over the cores.
// Each hop's message costs its two ends alike (Transfer::CriticalBytes::nodeMessages): the chain's
// two ends carry half a hop, every rank inside it a whole one. The broadcast runs 0 -> 1 -> ...
// -> n-1 (on 2 cores always even); the reduce 1 -> 2 -> ... -> n-1 -> 0, whose last hop joins
// two ranks of core 0 where n is odd (3 ranks: core 0 carries 1.5 hops of 2).
double chainShare(int ranks, int cores, bool intoRoot) {
  const int first = intoRoot ? 1 % ranks : 0, last = intoRoot ? 0 : ranks - 1;  // the chain's two ends
  const double hops = busiestCoreLoad(ranks, cores, [&](int rank) { return rank == first || rank == last ? 0.5 : 1.0; });
  return hops / std::max(1, ranks - 1);
}
double broadcastChainShare(int ranks, int cores) { return chainShare(ranks, cores, false); }
double reduceChainShare(int ranks, int cores) { return chainShare(ranks, cores, true); }

}  // namespace

bool planChain(Collective c, const Shape& s, double bytes, Plan& plan) {
  if (c != Collective::Broadcast && c != Collective::Reduce) return false;
  const int n = s.ranks, p = s.nodes;
  const double chunks = std::max(1.0, std::ceil(bytes / static_cast<double>(Context::kDefaultChunkBytes)));
  const double chunk = bytes / chunks;
  const double intraHops = n - p;
  Phase& phase = plan.addPhase();
  // Inside the node the fill of every hop but the last adds a chunk to the critical path, and each
  // chunk is a message of its own: the last rank has the last chunk after k + hops - 1 messages
  // in sequence.
  const double messages = intraHops > 0 ? chunks + intraHops - 1 : 0;
  Transfer intra{LinkClass::Intra, messages, bytes + std::max(0.0, intraHops - 1) * chunk, n};
  intra.busyCopiers = std::min(n, static_cast<int>(chunks) + 1);  // k chunks keep k hops, k + 1 ranks in a row, busy at once
  intra.critical.sharedDevice = intraHops * bytes;  // one GPU under all: every hop copies the buffer
  // Shared memory: a rank inside the chain receives and forwards every byte, one hop's ends only
  // send or receive; the ranks' unequal work is a flow, the hops' buffers shared by the cores.
  intra.oneWay = intraHops == 1;
  intra.critical.nodeMessages = intraHops * bytes;
  intra.critical.busiestCoreShare = c == Collective::Reduce ? reduceChainShare : broadcastChainShare;
  // The first hop reads its sender's input; every later one what the rank before it received (or
  // reduced) in this call.
  intra.freshShare = afterTheFirst(intraHops);
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, static_cast<double>(p - 1), bytes, n});
  if (c == Collective::Reduce) phase.reduceBytes = bytes;
  return true;
}

}  // namespace cclab::sim
