// Binomial-tree reduce: the broadcast tree run backwards. With v = a rank's distance from the
// root, in round k (mask m = 2^k) a rank whose bit k is set sends its partial result to v - m and
// is done; the others receive v + m's partial result (if that rank exists) and reduce it in, lower
// distance's data first. ceil(log2 n) rounds of the whole buffer.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"

namespace cclab {

void treeReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t bytes = args.count * sizeOf(args.dtype);
  const std::size_t slotBytes = alignedSlotBytes(args.count, sizeOf(args.dtype));
  char* scratch = static_cast<char*>(ctx.scratch(2 * slotBytes));
  // The root accumulates in its output; the others in scratch (their output is not theirs to write).
  void* partial = v == 0 ? args.recv : scratch;
  char* incoming = scratch + slotBytes;
  device.copy(partial, args.send, bytes);  // a no-op at the root in place

  for (int mask = 1; mask < n; mask *= 2) {
    if (v & mask) {
      transport.wait(transport.isend(partial, bytes, rankAt(v - mask)));
      return;
    }
    if (v + mask < n) {
      transport.wait(transport.irecv(incoming, bytes, rankAt(v + mask)));
      device.reduce(partial, partial, incoming, args.count, args.dtype, args.op);
    }
  }
  if (args.op == ReduceOp::Avg) device.divide(partial, args.count, args.dtype, n);  // only the root gets here
}

}  // namespace cclab
