// Double-binary-tree all-reduce, as NCCL builds it: the buffer is cut in two halves, each reduced
// up one binary tree to its root and broadcast back down, in pipelined chunks. A binary tree's
// leaves (half the ranks) only send; the second tree is the first mirrored (even n) or shifted by
// one (odd n), so the ranks that are leaves in one are inner nodes in the other and every rank
// sends and receives about the same bytes: 2 log2(n) latencies and the whole buffer up and down.
//
// The tree (positions 0..n-1, the in-order tree of NCCL's ncclGetBtree): position p > 0 with
// lowest set bit b has children p - b/2 and p + b/2 (the second: the largest p + b/2^k below n) and
// its parent is p with bit b cleared and bit 2b set (bit b cleared alone, if that is not below n).
// Odd positions are leaves. Position 0 is the root, with the single child at the largest power of
// two below n.
//
// Here the two trees run one after the other (each pipelined up and then down), where NCCL runs
// them at once on separate channels: the same bytes through every port, one tree's latency more.

#include <array>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"
#include "collectives/partition.h"

namespace cclab {
namespace {

struct TreeNode {
  int parent = -1;
  std::array<int, 2> children{-1, -1};
};

// The in-order binary tree's links at position p of n.
TreeNode positionInTree(int p, int n) {
  TreeNode node;
  int bit = 1;
  while (bit < n && (p & bit) == 0) bit *= 2;  // p's lowest set bit (the root: the first power of two >= n)
  if (p > 0) {
    node.parent = (p & ~bit) | (bit * 2);
    if (node.parent >= n) node.parent = p & ~bit;
    if (bit > 1) node.children[0] = p - bit / 2;
  }
  for (int down = bit / 2; down > 0; down /= 2) {
    if (p + down < n) {
      node.children[1] = p + down;
      break;
    }
  }
  return node;
}

// The links of `rank` in tree `which`: tree 1 is tree 0 over mirrored (even n) or shifted (odd n)
// positions.
TreeNode rankInTree(int rank, int n, int which) {
  auto toPosition = [&](int r) { return which == 0 ? r : (n % 2 == 0 ? n - 1 - r : (r + 1) % n); };
  auto toRank = [&](int p) { return which == 0 ? p : (n % 2 == 0 ? n - 1 - p : (p + n - 1) % n); };
  TreeNode node = positionInTree(toPosition(rank), n);
  if (node.parent >= 0) node.parent = toRank(node.parent);
  for (int& child : node.children) {
    if (child >= 0) child = toRank(child);
  }
  return node;
}

}  // namespace

void treeAllReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const std::size_t elementSize = sizeOf(args.dtype);
  if (n == 1) {
    device.copy(args.recv, args.send, args.count * elementSize);  // a no-op in place
    return;
  }
  // Out of place the input is not copied into the output first: a rank's first reduction reads
  // it where it is and writes the output, and a leaf sends it as it is (and receives the result
  // into its output on the way down).
  const bool fused = transport.fusesReceiveReduce();

  for (int which = 0; which < 2; ++which) {
    const TreeNode node = rankInTree(ctx.rank(), n, which);
    const Block half = evenBlock(args.count, 2, static_cast<std::size_t>(which));
    if (half.count == 0) continue;
    const std::size_t chunks = chunksFor(half.count, elementSize, ctx.chunkBytes());
    auto chunk = [&](std::size_t c) {
      const Block b = evenBlock(half.count, chunks, c);
      return Block{half.offset + b.offset, b.count};
    };
    auto at = [&](std::size_t c) { return elementAt(args.recv, chunk(c).offset, args.dtype); };
    auto input = [&](std::size_t c) { return elementAt(args.send, chunk(c).offset, args.dtype); };
    const std::size_t slotBytes = alignedSlotBytes(half.count, elementSize);
    // One slot per child for its partial results, where the transport does not reduce as it
    // receives.
    char* slots = fused ? nullptr : static_cast<char*>(ctx.scratch(2 * slotBytes));
    auto slot = [&](int child, std::size_t c) { return slots + static_cast<std::size_t>(child) * slotBytes + (chunk(c).offset - half.offset) * elementSize; };

    // Up: every chunk from the children, reduced in (the first child's onto the input, the
    // second's onto that), passed to the parent. Into slots the receives are posted at once; a
    // fused receive of the second child is posted once the first's has landed, since both write
    // the same chunk.
    std::vector<Request> recvs, sends;
    for (std::size_t c = 0; c < chunks && !fused; ++c) {
      for (int k = 0; k < 2; ++k) {
        if (node.children[k] >= 0) recvs.push_back(transport.irecv(slot(k, c), chunk(c).count * elementSize, node.children[k]));
      }
    }
    std::size_t next = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
      const char* partial = input(c);  // this rank's partial result of chunk c so far
      for (int k = 0; k < 2; ++k) {
        if (node.children[k] < 0) continue;
        if (fused) {
          transport.wait(transport.irecvReduce(at(c), partial, chunk(c).count, args.dtype, args.op, node.children[k]));
        } else {
          transport.wait(recvs[next++]);
          device.reduce(at(c), partial, slot(k, c), chunk(c).count, args.dtype, args.op);
        }
        partial = at(c);
      }
      if (node.parent >= 0) {
        sends.push_back(transport.isend(partial, chunk(c).count * elementSize, node.parent));
      } else if (args.op == ReduceOp::Avg) {
        device.divide(at(c), chunk(c).count, args.dtype, n);  // the root holds the final sum
      }
    }
    for (Request& request : sends) transport.wait(request);  // the partial results may be overwritten now
    sends.clear();

    // Down: every chunk from the parent (the root has them), passed to the children.
    recvs.clear();
    if (node.parent >= 0) {
      for (std::size_t c = 0; c < chunks; ++c) recvs.push_back(transport.irecv(at(c), chunk(c).count * elementSize, node.parent));
    }
    for (std::size_t c = 0; c < chunks; ++c) {
      if (node.parent >= 0) transport.wait(recvs[c]);
      for (int child : node.children) {
        if (child >= 0) sends.push_back(transport.isend(at(c), chunk(c).count * elementSize, child));
      }
    }
    for (Request& request : sends) transport.wait(request);
  }
}

}  // namespace cclab
