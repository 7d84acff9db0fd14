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
  // The root accumulates in its output; the others in scratch (their output is not theirs to
  // write). No rank copies its input first: its first reduction reads the input where it is, and
  // a leaf sends it as it is. A transport that reduces as it receives leaves `incoming` unused.
  const bool fused = transport.fusesReceiveReduce();
  const std::size_t slotBytes = alignedSlotBytes(args.count, sizeOf(args.dtype));
  char* scratch = static_cast<char*>(ctx.scratch(2 * slotBytes));
  char* incoming = scratch;
  void* sum = v == 0 ? args.recv : scratch + slotBytes;  // where the partial results land
  const void* partial = args.send;                       // this rank's partial result so far

  for (int mask = 1; mask < n; mask *= 2) {
    if (v & mask) {
      transport.wait(transport.isend(partial, bytes, rankAt(v - mask)));
      return;
    }
    if (v + mask >= n) continue;
    if (fused) {
      transport.wait(transport.irecvReduce(sum, partial, args.count, args.dtype, args.op, rankAt(v + mask)));
    } else {
      transport.wait(transport.irecv(incoming, bytes, rankAt(v + mask)));
      device.reduce(sum, partial, incoming, args.count, args.dtype, args.op);  // lower distance's data first
    }
    partial = sum;
  }
  // Only the root gets here; alone (n = 1) it has received nothing.
  if (partial != args.recv) device.copy(args.recv, partial, bytes);
  if (args.op == ReduceOp::Avg) device.divide(args.recv, args.count, args.dtype, n);
}

}  // namespace cclab
