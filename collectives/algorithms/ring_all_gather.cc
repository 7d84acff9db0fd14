// Ring all-gather: every rank ends with every rank's block, in rank order.
//
// Step t (of n-1): send block r-t (step 0: this rank's own input), receive block r-t-1 from the
// left straight into the output, and forward it at the next step. Each rank sends (n-1)/n of the
// output.

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"

namespace cclab {

void ringAllGather(Context& ctx, const CollectiveArgs& args) {
  const int n = ctx.size();
  const int r = ctx.rank();
  auto outBlock = [&](int b) {
    return elementAt(args.recv, static_cast<std::size_t>((b % n + n) % n) * args.count, args.dtype);
  };
  // Place this rank's own block (already there when running in place).
  ctx.device().copy(outBlock(r), args.send, args.count * sizeOf(args.dtype));

  std::vector<RingStep> steps;
  for (int t = 0; t < n - 1; ++t) {
    RingStep step;
    step.send = (t == 0) ? args.send : static_cast<const void*>(outBlock(r - t));
    step.dest = outBlock(r - t - 1);
    step.sendCount = step.recvCount = args.count;
    steps.push_back(step);
  }
  runRingSteps(ctx, steps, args.dtype, args.op);
}

}  // namespace cclab
