// Pairwise-exchange all-to-all: n-1 steps; in step s rank r sends its block for rank r+s and
// receives rank r-s's block for it. Every pair of ranks exchanges exactly once and no rank ever
// receives from two peers at the same time. Each rank sends (n-1)/n of its buffer.

#include "collectives/algorithms/alltoall_blocks.h"

namespace cclab {

void pairwiseAllToAll(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int r = ctx.rank();
  const AlltoallBlocks blocks(ctx, args);
  ctx.device().copy(blocks.out(r), blocks.in(r), blocks.bytes());  // this rank's own block
  for (int s = 1; s < n; ++s) {
    const int to = (r + s) % n;
    const int from = (r - s + n) % n;
    Request recv = transport.irecv(blocks.out(from), blocks.bytes(), from);
    Request send = transport.isend(blocks.in(to), blocks.bytes(), to);
    transport.wait(recv);
    transport.wait(send);
  }
}

}  // namespace cclab
