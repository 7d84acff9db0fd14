// Bruck's all-gather: ceil(log2 n) steps for any rank count (no folding). Rank r collects blocks
// in the order r, r+1, r+2, ... in a scratch buffer; in the step at distance d = 1, 2, 4, ... it
// sends the first min(d, n-d) blocks it holds to rank r-d and receives as many from rank r+d
// after them. A final rotation puts block i at rank i's place in the output. Each rank sends
// (n-1)/n of the output, plus one local copy of it: fewer messages than the ring, one extra pass.

#include <algorithm>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/rotation.h"

namespace cclab {

void bruckAllGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  char* held = static_cast<char*>(ctx.scratch(blockBytes * static_cast<std::size_t>(n)));  // held[i]: rank r+i's block
  device.copy(held, args.send, blockBytes);
  for (int distance = 1; distance < n; distance *= 2) {
    const std::size_t moved = static_cast<std::size_t>(std::min(distance, n - distance)) * blockBytes;
    Request in = transport.irecv(held + static_cast<std::size_t>(distance) * blockBytes, moved, (r + distance) % n);
    Request out = transport.isend(held, moved, (r - distance + n) % n);
    transport.wait(in);
    transport.wait(out);
  }
  // held[i] is rank (r+i)'s block.
  rotateToRankOrder(device, args.recv, held, r, n, blockBytes);
}

}  // namespace cclab
