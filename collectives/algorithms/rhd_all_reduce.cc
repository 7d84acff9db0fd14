// Rabenseifner's all-reduce: a reduce-scatter by recursive halving, then an all-gather by
// recursive doubling. 2 log2(n) steps moving 2(n-1)/n of the buffer per rank: the ring's bytes
// with the tree's step count, so it wins at mid sizes.
//
// 1. Fold (rank counts that are not a power of two, recursive_fold.h): each extra rank sends its
//    input to its odd neighbour, which reduces it in.
// 2. Recursive halving: the buffer is cut into pof2 blocks, block v ending at participant v. In
//    the step at distance d (pof2/2, ..., 2, 1) each participant keeps the half of its current
//    range of blocks on its side of the partner d away, sends the other half, and reduces the
//    partner's copy of the kept half in (lower rank's data first).
// 3. Recursive doubling: at distance 1, 2, ..., pof2/2 partners swap the ranges they hold, which
//    double, until every participant holds the whole result.
// 4. Unfold: the odd neighbour sends the result back.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/recursive_fold.h"
#include "collectives/partition.h"

namespace cclab {

void rhdAllReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t elementSize = sizeOf(args.dtype);
  const std::size_t bytes = args.count * elementSize;
  if (n == 1) {
    device.copy(args.recv, args.send, bytes);  // a no-op in place
    return;
  }
  const Fold fold(n, r);
  const int pof2 = fold.pof2();
  char* incoming = static_cast<char*>(ctx.scratch(bytes));

  if (!foldIn(ctx, fold, args.send, args.recv, incoming, args.count, args.dtype, args.op)) {  // 1
    foldOut(ctx, fold, args.recv, bytes);  // 4, the extra rank's side
    return;
  }
  // The elements of blocks [first, first + blocks).
  auto range = [&](int first, int blocks) {
    const Block a = evenBlock(args.count, static_cast<std::size_t>(pof2), static_cast<std::size_t>(first));
    const Block z = evenBlock(args.count, static_cast<std::size_t>(pof2), static_cast<std::size_t>(first + blocks - 1));
    return Block{a.offset, z.offset + z.count - a.offset};
  };
  auto at = [&](Block b) { return elementAt(args.recv, b.offset, args.dtype); };
  // Where this rank's partial results are: the input until the first halving step reduces into
  // the output (the input is never copied into the output first), or the fold's result.
  const void* partial = fold.standsIn() ? args.recv : args.send;
  auto from = [&](Block b) { return elementAt(partial, b.offset, args.dtype); };

  const int me = fold.participant();
  for (int distance = pof2 / 2; distance >= 1; distance /= 2) {  // 2
    const int peer = fold.rankOf(me ^ distance);
    const int base = me & ~(2 * distance - 1);                     // the range both partners hold
    const bool lowerHalf = (me & distance) == 0;
    const Block keep = range(lowerHalf ? base : base + distance, distance);
    const Block give = range(lowerHalf ? base + distance : base, distance);
    exchangeReduce(ctx, from(give), give.count * elementSize, at(keep), from(keep), keep.count, args.dtype, args.op, incoming, peer);
    partial = args.recv;
  }
  if (args.op == ReduceOp::Avg) device.divide(at(range(me, 1)), range(me, 1).count, args.dtype, n);
  for (int distance = 1; distance < pof2; distance *= 2) {  // 3
    const int peer = fold.rankOf(me ^ distance);
    const Block mine = range(me & ~(distance - 1), distance);
    const Block theirs = range((me ^ distance) & ~(distance - 1), distance);
    exchange(transport, at(mine), mine.count * elementSize, at(theirs), theirs.count * elementSize, peer);
  }
  foldOut(ctx, fold, args.recv, bytes);  // 4
}

}  // namespace cclab
