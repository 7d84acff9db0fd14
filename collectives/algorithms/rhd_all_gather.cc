// Recursive-doubling all-gather: log2(n) steps; at distance 1, 2, 4, ... partners swap the runs
// of blocks they hold, which double each step, straight into the output. Each rank sends (n-1)/n
// of the output in log2(n) messages (the ring: the same bytes in n-1).
//
// 1. Every rank places its block in the output.
// 2. Fold (rank counts that are not a power of two, recursive_fold.h): each extra rank sends its
//    block to its odd neighbour, which from then on holds both.
// 3. Recursive doubling among the participants, over runs of whole ranks' blocks.
// 4. Unfold: the odd neighbour sends the whole output to the extra rank.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/recursive_fold.h"

namespace cclab {

void rhdAllGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  auto blocks = [&](int firstRank) { return elementAt(args.recv, static_cast<std::size_t>(firstRank) * args.count, args.dtype); };
  ctx.device().copy(blocks(r), args.send, blockBytes);  // 1 (a no-op in place)
  const Fold fold(n, r);

  if (fold.sitsOut()) {  // 2 and 4, the extra rank's side
    sendTo(transport, blocks(r), blockBytes, r + 1);
    receiveFrom(transport, args.recv, blockBytes * static_cast<std::size_t>(n), r + 1);
    return;
  }
  if (fold.standsIn()) receiveFrom(transport, blocks(r - 1), blockBytes, r - 1);  // 2
  const int me = fold.participant();
  for (int distance = 1; distance < fold.pof2(); distance *= 2) {  // 3
    const int peer = fold.rankOf(me ^ distance);
    const int mine = me & ~(distance - 1);
    const int theirs = (me ^ distance) & ~(distance - 1);
    exchange(transport, blocks(fold.firstRankOf(mine)), static_cast<std::size_t>(fold.ranksOf(mine, distance)) * blockBytes,
             blocks(fold.firstRankOf(theirs)), static_cast<std::size_t>(fold.ranksOf(theirs, distance)) * blockBytes, peer);
  }
  if (fold.standsIn()) sendTo(transport, args.recv, blockBytes * static_cast<std::size_t>(n), r - 1);  // 4
}

}  // namespace cclab
