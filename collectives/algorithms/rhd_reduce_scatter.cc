// Recursive-halving reduce-scatter: log2(n) steps; in the step at distance d (n/2, ..., 2, 1)
// each rank keeps the half of its current range of blocks on its side of the partner d away,
// sends the other half and reduces the partner's copy of the kept half in. Each rank sends
// (n-1)/n of the input in log2(n) messages (the ring: the same bytes in n-1).
//
// The partial sums accumulate in scratch (the input stays intact); the first reduction reads the
// input where it is, so the input is never copied first.
// 1. Fold (rank counts that are not a power of two, recursive_fold.h): each extra rank sends its
//    whole input to its odd neighbour, which reduces it in as it receives (receiveReduce) and from
//    then on speaks for both ranks' blocks.
// 2. Recursive halving among the participants, over ranges of whole ranks' blocks.
// 3. Each participant ends with its ranks' blocks reduced: it keeps its own and sends the extra
//    rank's block to it.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/recursive_fold.h"
#include "collectives/algorithms/ring_pipeline.h"

namespace cclab {

void rhdReduceScatter(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t elementSize = sizeOf(args.dtype);
  const std::size_t blockBytes = args.count * elementSize;
  const std::size_t allBytes = blockBytes * static_cast<std::size_t>(n);
  const std::size_t workBytes = alignedSlotBytes(args.count * static_cast<std::size_t>(n), elementSize);
  char* work = static_cast<char*>(ctx.scratch(workBytes + allBytes));
  char* incoming = work + workBytes;
  // Where this rank's partial sums are: the input until the first reduction writes `work`.
  const char* partial = static_cast<const char*>(args.send);
  auto from = [&](int firstRank) { return partial + static_cast<std::size_t>(firstRank) * blockBytes; };
  auto into = [&](int firstRank) { return work + static_cast<std::size_t>(firstRank) * blockBytes; };
  const Fold fold(n, r);

  if (fold.sitsOut()) {  // 1 and 3, the extra rank's side
    sendTo(transport, args.send, allBytes, r + 1);
    receiveFrom(transport, args.recv, blockBytes, r + 1);
  } else {
    if (fold.standsIn()) {  // 1. the lower rank's data first
      receiveReduce(ctx, work, args.send, args.count * static_cast<std::size_t>(n), args.dtype, args.op, incoming, r - 1);
      partial = work;
    }
    const int me = fold.participant();
    for (int distance = fold.pof2() / 2; distance >= 1; distance /= 2) {  // 2
      const int peer = fold.rankOf(me ^ distance);
      const int base = me & ~(2 * distance - 1);
      const bool lowerHalf = (me & distance) == 0;
      const int keepFirst = fold.firstRankOf(lowerHalf ? base : base + distance);
      const int giveFirst = fold.firstRankOf(lowerHalf ? base + distance : base);
      const std::size_t keepBlocks = static_cast<std::size_t>(fold.ranksOf(lowerHalf ? base : base + distance, distance));
      const std::size_t giveBlocks = static_cast<std::size_t>(fold.ranksOf(lowerHalf ? base + distance : base, distance));
      exchangeReduce(ctx, from(giveFirst), giveBlocks * blockBytes, into(keepFirst), from(keepFirst), keepBlocks * args.count,
                     args.dtype, args.op, incoming, peer);
      partial = work;
    }
    if (fold.standsIn()) sendTo(transport, from(r - 1), blockBytes, r - 1);  // 3
    device.copy(args.recv, from(r), blockBytes);  // alone (n = 1): straight from the input
  }
  if (args.op == ReduceOp::Avg) device.divide(args.recv, args.count, args.dtype, n);
}

}  // namespace cclab
