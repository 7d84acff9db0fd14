// Binomial-tree scatter: the gather tree run forwards. With v = a rank's distance from the root,
// a rank receives the blocks of its subtree (distances v, ..., v+s-1, s = its lowest set bit, cut
// at n) from v - s, then hands the upper halves on: to v + s/2, v + s/4, ..., v + 1, the farthest
// first. ceil(log2 n) rounds where the linear scatter's root sends n-1 messages. The root sends
// each child's run straight out of its input, in two messages where the run crosses rank 0 (rank
// order wraps there), so it never copies the buffer; a leaf (s = 1) receives into its output.

#include <algorithm>
#include <array>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/rotation.h"

namespace cclab {

void treeScatter(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  const int wrap = n - args.root;  // rank 0's distance
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  auto bytesOf = [&](int blocks) { return static_cast<std::size_t>(blocks) * blockBytes; };
  std::array<Request, 33> sends;  // one per child and one more around rank 0: no allocation per call
  std::size_t posted = 0;

  if (v == 0) {
    const char* in = static_cast<const char*>(args.send);
    int top = 1;
    while (top < n) top *= 2;
    for (int mask = top / 2; mask > 0; mask /= 2) {
      const RunAroundRankZero run = splitAtRankZero(mask, std::min(mask, n - mask), wrap);
      sends[posted++] = transport.isend(in + bytesOf(rankAt(mask)), bytesOf(run.before), rankAt(mask));
      if (run.after > 0) sends[posted++] = transport.isend(in, bytesOf(run.after), rankAt(mask));
    }
    device.copy(args.recv, in + bytesOf(args.root), blockBytes);  // a no-op in place
    for (std::size_t i = 0; i < posted; ++i) transport.wait(sends[i]);
    return;
  }

  const int low = v & -v;  // the round this rank receives in
  const int subtree = std::min(low, n - v);
  char* run = subtree > 1 ? static_cast<char*>(ctx.scratch(bytesOf(subtree))) : static_cast<char*>(args.recv);  // run[i]: distance v+i
  // From the root in the pieces its input keeps apart; from any other parent in one message.
  const RunAroundRankZero pieces = v == low ? splitAtRankZero(v, subtree, wrap) : RunAroundRankZero{subtree, 0};
  const Request before = transport.irecv(run, bytesOf(pieces.before), rankAt(v - low));
  const Request after = pieces.after > 0 ? transport.irecv(run + bytesOf(pieces.before), bytesOf(pieces.after), rankAt(v - low)) : Request{};
  transport.wait(before);
  if (pieces.after > 0) transport.wait(after);
  for (int mask = low / 2; mask > 0; mask /= 2) {
    if (v + mask < n) {
      const int going = std::min(mask, n - v - mask);
      sends[posted++] = transport.isend(run + bytesOf(mask), bytesOf(going), rankAt(v + mask));
    }
  }
  device.copy(args.recv, run, blockBytes);  // this rank's own block; a no-op for a leaf
  for (std::size_t i = 0; i < posted; ++i) transport.wait(sends[i]);
}

}  // namespace cclab
