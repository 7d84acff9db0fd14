// Binomial-tree scatter: the gather tree run forwards. With v = a rank's distance from the root,
// a rank receives the blocks of its subtree (distances v, ..., v+s-1, s = its lowest set bit, cut
// at n) from v - s in one message, then hands the upper halves on: to v + s/2, v + s/4, ..., v + 1.
// ceil(log2 n) rounds where the linear scatter's root sends n-1 messages.

#include <algorithm>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/rotation.h"

namespace cclab {

void treeScatter(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  char* run = static_cast<char*>(ctx.scratch(blockBytes * static_cast<std::size_t>(n)));  // run[i]: distance v+i
  int mask = 1;
  while (mask < n && (v & mask) == 0) mask *= 2;  // the root ends with the first power of two >= n
  if (v == 0) {
    rotateFromRankOrder(device, run, args.send, args.root, n, blockBytes);  // the root's input in distance order
  } else {
    const int coming = std::min(mask, n - v);
    transport.wait(transport.irecv(run, static_cast<std::size_t>(coming) * blockBytes, rankAt(v - mask)));
  }
  std::vector<Request> sends;
  for (mask /= 2; mask > 0; mask /= 2) {
    if (v + mask < n) {
      const int going = std::min(mask, n - v - mask);
      sends.push_back(transport.isend(run + static_cast<std::size_t>(mask) * blockBytes,
                                      static_cast<std::size_t>(going) * blockBytes, rankAt(v + mask)));
    }
  }
  device.copy(args.recv, run, blockBytes);  // this rank's own block
  for (Request& request : sends) transport.wait(request);
}

}  // namespace cclab
