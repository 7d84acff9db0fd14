// Binomial-tree gather: ceil(log2 n) rounds where the linear gather's root takes n-1 messages.
// With v = a rank's distance from the root, a rank collects the blocks of distances
// v, v+1, ..., v+s-1 (its subtree, s = its lowest set bit, cut at n) in a scratch buffer: in round
// k (mask m = 2^k) a rank whose bit k is clear receives v+m's run after its own; one whose bit k is
// set sends its run to v - m and is done. The root's run is every block in distance order, which
// it rotates into rank order. The root's link carries (n-1)/n of the output, as with linear.

#include <algorithm>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/rotation.h"

namespace cclab {

void treeGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  char* run = static_cast<char*>(ctx.scratch(blockBytes * static_cast<std::size_t>(n)));  // run[i]: distance v+i
  device.copy(run, args.send, blockBytes);
  int held = 1;
  for (int mask = 1; mask < n; mask *= 2) {
    if (v & mask) {
      transport.wait(transport.isend(run, static_cast<std::size_t>(held) * blockBytes, rankAt(v - mask)));
      return;
    }
    if (v + mask < n) {
      const int coming = std::min(mask, n - v - mask);
      transport.wait(transport.irecv(run + static_cast<std::size_t>(held) * blockBytes,
                                     static_cast<std::size_t>(coming) * blockBytes, rankAt(v + mask)));
      held += coming;
    }
  }
  // The root: run[i] is rank root+i's block.
  rotateToRankOrder(device, args.recv, run, args.root, n, blockBytes);
}

}  // namespace cclab
