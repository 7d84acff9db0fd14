// Hierarchical all-reduce: a reduce-scatter inside each node, an all-reduce across nodes, an
// all-gather inside each node. The bytes crossing nodes are the buffer's 2(p-1)/p shared by the
// node's g ranks, each carrying its own 1/g segment over its own path; the node-local rings run
// over the fast links. (NCCL and Horovod build the same three phases.)
//
// Nodes: ranks k*i .. k*i+k-1 share node i (Context::ranksPerNode: from host names, or
// `--ranks-per-node k` to emulate nodes on one host). Nodes must be equal in size.
// 1. Ring reduce-scatter over the node's ranks: local rank l ends with segment l+1 of the node's
//    sum (the buffer cut into k segments).
// 2. Ring all-reduce of that segment across the ranks with the same local rank on every node;
//    Avg divides here, once the sum is complete.
// 3. Ring all-gather over the node's ranks: every rank ends with every finished segment.

#include <vector>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"
#include "collectives/errors.h"
#include "collectives/partition.h"

namespace cclab {

void hierAllReduce(Context& ctx, const CollectiveArgs& args) {
  const int n = ctx.size();
  const int r = ctx.rank();
  const int k = (ctx.ranksPerNode() <= 0 || ctx.ranksPerNode() > n) ? n : ctx.ranksPerNode();
  if (n % k != 0) {
    throw InputError(fmt::format("the hierarchical all_reduce needs equal nodes: {} ranks do not make nodes of {}", n, k));
  }
  const int node = r / k;
  const int local = r % k;
  std::vector<int> nodeRanks, sameLocalRank;
  for (int i = 0; i < k; ++i) nodeRanks.push_back(node * k + i);
  for (int j = 0; j < n / k; ++j) sameLocalRank.push_back(j * k + local);
  Context& inNode = ctx.group(nodeRanks);
  Context& acrossNodes = ctx.group(sameLocalRank);

  std::vector<RingStep> steps;  // 1
  if (k == 1) ctx.device().copy(args.recv, args.send, args.count * sizeOf(args.dtype));
  addRingReduceScatterHalf(steps, k, local, args, false);
  runRingSteps(inNode, steps, args.dtype, args.op);

  const Block mine = evenBlock(args.count, static_cast<std::size_t>(k), static_cast<std::size_t>((local + 1) % k));  // 2
  if (mine.count > 0) {
    void* segment = elementAt(args.recv, mine.offset, args.dtype);
    const ReduceOp op = args.op == ReduceOp::Avg ? ReduceOp::Sum : args.op;
    ringAllReduce(acrossNodes, CollectiveArgs{segment, segment, mine.count, args.dtype, op, 0});
    if (args.op == ReduceOp::Avg) ctx.device().divide(segment, mine.count, args.dtype, n);
  }

  steps.clear();  // 3
  addRingAllGatherHalf(steps, k, local, args);
  runRingSteps(inNode, steps, args.dtype, args.op);
}

}  // namespace cclab
