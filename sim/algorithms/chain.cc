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
  phase.add(intra);
  if (p > 1) phase.add({LinkClass::Inter, static_cast<double>(p - 1), bytes, n});
  if (c == Collective::Reduce) phase.reduceBytes = bytes;
  return true;
}

}  // namespace cclab::sim
