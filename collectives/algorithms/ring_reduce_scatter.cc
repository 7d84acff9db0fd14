// Ring reduce-scatter: rank r ends with block r of the reduction of every rank's input.
//
// Step t (of n-1): send the partial sum of block r-t-1, receive the partial sum of block r-t-2
// from the left and add this rank's own input block to it. The partial sums travel around the
// ring collecting one contribution per hop; the last one to arrive is block r, complete. Each rank
// sends (n-1)/n of the input.

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"

namespace cclab {

void ringReduceScatter(Context& ctx, const CollectiveArgs& args) {
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  if (n == 1) {
    ctx.device().copy(args.recv, args.send, blockBytes);
    return;
  }
  auto block = [&](int b) { return elementAt(args.send, static_cast<std::size_t>((b % n + n) % n) * args.count, args.dtype); };

  std::vector<RingStep> steps(static_cast<std::size_t>(n - 1));
  for (auto& step : steps) step.sendCount = step.recvCount = args.count;  // every block is `count` long
  // Partial sums wait in two scratch blocks used in turn (after the engine's receive slots).
  const std::size_t slotBytes = ringSlotBytes(ctx, steps, args.dtype);
  const std::size_t partialBytes = alignedSlotBytes(args.count, sizeOf(args.dtype));  // both start aligned
  char* scratch = static_cast<char*>(ctx.scratch(slotBytes + 2 * partialBytes));
  char* partial[2] = {scratch + slotBytes, scratch + slotBytes + partialBytes};

  for (int t = 0; t < n - 1; ++t) {
    RingStep& step = steps[static_cast<std::size_t>(t)];
    const bool last = (t == n - 2);
    step.send = (t == 0) ? static_cast<const void*>(block(r - 1)) : steps[static_cast<std::size_t>(t - 1)].dest;
    step.dest = last ? args.recv : partial[t % 2];  // the last step completes block r in the output
    step.reduceWith = block(r - t - 2);
    step.finishAvg = last;
  }
  runRingSteps(ctx, steps, args.dtype, args.op);
}

}  // namespace cclab
