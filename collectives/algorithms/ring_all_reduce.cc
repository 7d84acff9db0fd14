// Ring all-reduce: a ring reduce-scatter followed by a ring all-gather, run as one pipeline.
//
// The buffer is cut into n segments. In the reduce-scatter half (n-1 steps) each rank sends a
// segment to its right neighbour, which adds its own contribution and passes the partial sum on;
// after n-1 steps rank r holds the complete result of segment r+1. In the all-gather half (n-1
// more steps) the finished segments travel once more around the ring. Each rank sends
// 2(n-1)/n of the buffer in all, the least any all-reduce can (the bandwidth-optimal schedule).

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"
#include "collectives/partition.h"

namespace cclab {

void addRingReduceScatterHalf(std::vector<RingStep>& steps, int n, int r, const CollectiveArgs& args, bool finishAvg) {
  auto segment = [&](int s) { return evenBlock(args.count, static_cast<std::size_t>(n), static_cast<std::size_t>((s % n + n) % n)); };
  auto in = [&](int s) { return elementAt(args.send, segment(s).offset, args.dtype); };
  auto out = [&](int s) { return elementAt(args.recv, segment(s).offset, args.dtype); };
  // Step t: send segment r-t, receive segment r-t-1 and add this rank's input to it. Step 0 sends
  // this rank's own input; later steps forward the partial sum just computed.
  for (int t = 0; t < n - 1; ++t) {
    RingStep step;
    step.send = (t == 0) ? static_cast<const void*>(in(r)) : out(r - t);
    step.sendCount = segment(r - t).count;
    step.dest = out(r - t - 1);
    step.recvCount = segment(r - t - 1).count;
    step.reduceWith = in(r - t - 1);
    step.finishAvg = finishAvg && (t == n - 2);  // segment r+1 is now complete on this rank
    steps.push_back(step);
  }
}

void addRingAllGatherHalf(std::vector<RingStep>& steps, int n, int r, const CollectiveArgs& args) {
  auto segment = [&](int s) { return evenBlock(args.count, static_cast<std::size_t>(n), static_cast<std::size_t>((s % n + n) % n)); };
  auto out = [&](int s) { return elementAt(args.recv, segment(s).offset, args.dtype); };
  // Step u: send the finished segment r+1-u, receive the finished segment r-u.
  for (int u = 0; u < n - 1; ++u) {
    RingStep step;
    step.send = out(r + 1 - u);
    step.sendCount = segment(r + 1 - u).count;
    step.dest = out(r - u);
    step.recvCount = segment(r - u).count;
    steps.push_back(step);
  }
}

void ringAllReduce(Context& ctx, const CollectiveArgs& args) {
  const int n = ctx.size();
  if (n == 1) {
    ctx.device().copy(args.recv, args.send, args.count * sizeOf(args.dtype));
    return;
  }
  std::vector<RingStep> steps;
  addRingReduceScatterHalf(steps, n, ctx.rank(), args, true);
  addRingAllGatherHalf(steps, n, ctx.rank(), args);
  runRingSteps(ctx, steps, args.dtype, args.op);
}

}  // namespace cclab
