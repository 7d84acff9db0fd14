// Ring reduce: partial sums flow along the chain root+1, root+2, ..., root-1 and end at the root.
//
// The buffer is cut into chunks. The first rank of the chain sends its input; every later rank
// receives chunk c, adds its own input and forwards the sum, pipelined like the chain broadcast.
// The root adds its input last and keeps the result.

#include <algorithm>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"
#include "collectives/partition.h"

namespace cclab {
namespace {
constexpr std::size_t kDepth = 4;  // chunks a rank has posted to receive ahead
}

void ringReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const std::size_t elementSize = sizeOf(args.dtype);
  if (n == 1) {
    device.copy(args.recv, args.send, args.count * elementSize);
    return;
  }
  const int position = (ctx.rank() - args.root - 1 + 2 * n) % n;  // root+1 is 0, the root is n-1
  const int next = (ctx.rank() + 1) % n;
  const int prev = (ctx.rank() + n - 1) % n;
  const bool isRoot = (position == n - 1);
  const std::size_t chunks = chunksFor(args.count, elementSize, ctx.chunkBytes());
  auto chunk = [&](std::size_t c) { return evenBlock(args.count, chunks, c); };

  std::vector<Request> sends;
  if (position == 0) {  // first in the chain: its input is the first partial sum
    for (std::size_t c = 0; c < chunks; ++c) {
      sends.push_back(transport.isend(elementAt(args.send, chunk(c).offset, args.dtype), chunk(c).count * elementSize, next));
    }
    for (Request& request : sends) transport.wait(request);
    return;
  }

  // Chunks arrive in `depth` receive slots; a middle rank's sums leave from `depth` send slots.
  const std::size_t depth = std::min(kDepth, chunks);
  const std::size_t slotBytes = alignedSlotBytes(args.count / chunks + 1, elementSize);
  char* scratch = static_cast<char*>(ctx.scratch(2 * depth * slotBytes));
  auto recvSlot = [&](std::size_t c) { return scratch + (c % depth) * slotBytes; };
  auto sendSlot = [&](std::size_t c) { return scratch + (depth + c % depth) * slotBytes; };

  // A transport that reduces as it receives (Transport::fusesReceiveReduce) reads the previous
  // rank's chunk in place: no receive slots, each receive posted once its target is free.
  const bool fused = transport.fusesReceiveReduce();
  std::vector<Request> recvs(chunks);
  auto postRecv = [&](std::size_t c) { recvs[c] = transport.irecv(recvSlot(c), chunk(c).count * elementSize, prev); };
  for (std::size_t c = 0; c < depth && !fused; ++c) postRecv(c);
  for (std::size_t c = 0; c < chunks; ++c) {
    const Block b = chunk(c);
    const char* input = elementAt(args.send, b.offset, args.dtype);
    // 1-2. The partial sum of chunk c from the previous rank, plus this rank's input: into the
    // result at the root, into a send slot (then forwarded) at a middle rank.
    if (!isRoot && c >= depth) transport.wait(sends[c - depth]);  // that send slot is free again
    char* target = isRoot ? elementAt(args.recv, b.offset, args.dtype) : sendSlot(c);
    if (fused) {
      recvs[c] = transport.irecvReduce(target, input, b.count, args.dtype, args.op, prev);
      transport.wait(recvs[c]);
    } else {
      transport.wait(recvs[c]);
      device.reduce(target, input, recvSlot(c), b.count, args.dtype, args.op);
    }
    if (isRoot && args.op == ReduceOp::Avg) device.divide(target, b.count, args.dtype, n);
    if (!isRoot) sends.push_back(transport.isend(sendSlot(c), b.count * elementSize, next));
    if (!fused && c + depth < chunks) postRecv(c + depth);  // 3. reuse the receive slot
  }
  const std::size_t firstUnwaited = chunks > depth ? chunks - depth : 0;
  for (std::size_t c = firstUnwaited; c < sends.size(); ++c) transport.wait(sends[c]);
}

}  // namespace cclab
