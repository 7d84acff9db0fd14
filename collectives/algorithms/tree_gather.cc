// Binomial-tree gather: ceil(log2 n) rounds where the linear gather's root takes n-1 messages.
// With v = a rank's distance from the root, a rank collects the blocks of distances
// v, v+1, ..., v+s-1 (its subtree, s = its lowest set bit, cut at n): in round k (mask m = 2^k)
// a rank whose bit k is clear receives v+m's run after its own; one whose bit k is set sends its
// run to v - m and is done. A leaf (s = 1) sends its input as it is; the others collect in a
// scratch run. The root receives each child's run straight into its place in the output, in two
// messages where the run crosses rank 0 (rank order wraps there), so it never copies the gathered
// buffer. The root's link carries (n-1)/n of the output, as with linear.

#include <algorithm>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/rotation.h"

namespace cclab {

void treeGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  const int wrap = n - args.root;  // rank 0's distance
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  auto bytesOf = [&](int blocks) { return static_cast<std::size_t>(blocks) * blockBytes; };

  if (v == 0) {
    char* out = static_cast<char*>(args.recv);
    device.copy(out + bytesOf(args.root), args.send, blockBytes);  // a no-op in place
    for (int mask = 1; mask < n; mask *= 2) {
      const RunAroundRankZero run = splitAtRankZero(mask, std::min(mask, n - mask), wrap);
      const Request before = transport.irecv(out + bytesOf(rankAt(mask)), bytesOf(run.before), rankAt(mask));
      const Request after = run.after > 0 ? transport.irecv(out, bytesOf(run.after), rankAt(mask)) : Request{};
      transport.wait(before);
      if (run.after > 0) transport.wait(after);
    }
    return;
  }

  const int low = v & -v;  // the round this rank sends in
  const int subtree = std::min(low, n - v);
  const char* run = static_cast<const char*>(args.send);  // a leaf's run is its input
  if (subtree > 1) {
    char* scratch = static_cast<char*>(ctx.scratch(bytesOf(subtree)));  // scratch[i]: distance v+i
    device.copy(scratch, args.send, blockBytes);
    int held = 1;
    for (int mask = 1; mask < low && v + mask < n; mask *= 2) {
      const int coming = std::min(mask, n - v - mask);
      transport.wait(transport.irecv(scratch + bytesOf(held), bytesOf(coming), rankAt(v + mask)));
      held += coming;
    }
    run = scratch;
  }
  // To the root in the pieces its output keeps apart; to any other parent in one message.
  const RunAroundRankZero pieces = v == low ? splitAtRankZero(v, subtree, wrap) : RunAroundRankZero{subtree, 0};
  const Request before = transport.isend(run, bytesOf(pieces.before), rankAt(v - low));
  const Request after = pieces.after > 0 ? transport.isend(run + bytesOf(pieces.before), bytesOf(pieces.after), rankAt(v - low)) : Request{};
  transport.wait(before);
  if (pieces.after > 0) transport.wait(after);
}

}  // namespace cclab
