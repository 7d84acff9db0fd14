// Recursive-doubling all-reduce: log2(n) steps; in step k each rank swaps its whole buffer with
// the partner 2^k away and reduces. Latency-optimal (log2 n messages where the ring takes
// 2(n-1)), but every step moves the whole buffer: the choice for small messages.
//
// 1. Fold (rank counts that are not a power of two, recursive_fold.h): each extra rank sends its
//    input to its odd neighbour, which reduces it in.
// 2. Partners at distance 1, 2, 4, ... among the participants exchange and reduce. Both partners
//    reduce in rank order (lower rank's data first), so both hold the same bits.
// 3. Unfold: the odd neighbour sends the result back.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/recursive_fold.h"

namespace cclab {

void rdAllReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t bytes = args.count * sizeOf(args.dtype);
  const Fold fold(n, r);
  void* incoming = ctx.scratch(bytes);
  // This rank's partial result: the input until the first reduction writes the output (the
  // input is never copied into the output first).
  const void* partial = args.send;

  if (foldIn(ctx, fold, args.send, args.recv, incoming, args.count, args.dtype, args.op)) {  // 1
    if (fold.standsIn()) partial = args.recv;
    const int me = fold.participant();
    for (int distance = 1; distance < fold.pof2(); distance *= 2) {  // 2
      const int peer = fold.rankOf(me ^ distance);
      exchange(transport, partial, bytes, incoming, bytes, peer);
      reduceInRankOrder(device, args.recv, partial, incoming, peer < r, args.count, args.dtype, args.op);
      partial = args.recv;
    }
    if (partial != args.recv) device.copy(args.recv, partial, bytes);  // alone (n = 1)
    if (args.op == ReduceOp::Avg) device.divide(args.recv, args.count, args.dtype, n);
  }
  foldOut(ctx, fold, args.recv, bytes);  // 3
}

}  // namespace cclab
