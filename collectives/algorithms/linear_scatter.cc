// Linear scatter: the root sends block q of its input straight to rank q, all n-1 sends at once.
// The root's link carries (n-1)/n of the input.

#include <vector>

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void linearScatter(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  if (ctx.rank() != args.root) {
    Request recv = transport.irecv(args.recv, blockBytes, args.root);
    transport.wait(recv);
    return;
  }
  auto inBlock = [&](int b) { return elementAt(args.send, static_cast<std::size_t>(b) * args.count, args.dtype); };
  std::vector<Request> sends;
  for (int peer = 0; peer < n; ++peer) {
    if (peer != args.root) sends.push_back(transport.isend(inBlock(peer), blockBytes, peer));
  }
  ctx.device().copy(args.recv, inBlock(args.root), blockBytes);  // a no-op in place
  for (Request& request : sends) transport.wait(request);
}

}  // namespace cclab
