// Pairwise-exchange all-to-all: n-1 steps; in step s rank r sends its block for rank r+s and
// receives rank r-s's block for it. Every pair of ranks exchanges exactly once and no rank ever
// receives from two peers at the same time. Each rank sends (n-1)/n of its buffer.

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void pairwiseAllToAll(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  auto inBlock = [&](const void* base, int b) { return elementAt(base, static_cast<std::size_t>(b) * args.count, args.dtype); };
  auto outBlock = [&](int b) { return elementAt(args.recv, static_cast<std::size_t>(b) * args.count, args.dtype); };

  // In place, the blocks to send would be overwritten by the blocks received: send from a copy.
  const void* input = args.send;
  if (args.send == args.recv) {
    void* copy = ctx.scratch(blockBytes * static_cast<std::size_t>(n));
    ctx.device().copy(copy, args.send, blockBytes * static_cast<std::size_t>(n));
    input = copy;
  }
  ctx.device().copy(outBlock(r), inBlock(input, r), blockBytes);  // this rank's own block
  for (int s = 1; s < n; ++s) {
    const int to = (r + s) % n;
    const int from = (r - s + n) % n;
    Request recv = transport.irecv(outBlock(from), blockBytes, from);
    Request send = transport.isend(inBlock(input, to), blockBytes, to);
    transport.wait(recv);
    transport.wait(send);
  }
}

}  // namespace cclab
