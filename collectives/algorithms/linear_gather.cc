// Linear gather: every rank sends its block straight to the root, which receives all n-1 blocks
// at once into their places in the output. The root's link carries (n-1)/n of the output.

#include <vector>

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void linearGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  if (ctx.rank() != args.root) {
    Request send = transport.isend(args.send, blockBytes, args.root);
    transport.wait(send);
    return;
  }
  auto outBlock = [&](int b) { return elementAt(args.recv, static_cast<std::size_t>(b) * args.count, args.dtype); };
  std::vector<Request> recvs;
  for (int peer = 0; peer < n; ++peer) {
    if (peer != args.root) recvs.push_back(transport.irecv(outBlock(peer), blockBytes, peer));
  }
  ctx.device().copy(outBlock(args.root), args.send, blockBytes);  // a no-op in place
  for (Request& request : recvs) transport.wait(request);
}

}  // namespace cclab
