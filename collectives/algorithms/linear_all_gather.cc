// Linear all-gather: every rank posts its n-1 receives and sends its own block to every other
// rank at once, then waits for them all (Open MPI's basic linear allgather does a gather and a
// broadcast; this is the direct exchange, as its alltoall does). One step of latency where the
// ring takes n-1 dependent steps and Bruck log2(n): it wins for small blocks, most of all where
// ranks outnumber the cores and each dependent step waits for its peer to be scheduled. Each rank
// sends its block n-1 times, (n-1)/n of the output, as the ring does, but all at once.

#include <vector>

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void linearAllGather(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  auto outBlock = [&](int b) { return elementAt(args.recv, static_cast<std::size_t>(b) * args.count, args.dtype); };
  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(n));
  for (int s = 1; s < n; ++s) {
    const int from = (r - s + n) % n;
    requests.push_back(transport.irecv(outBlock(from), blockBytes, from));
  }
  for (int s = 1; s < n; ++s) requests.push_back(transport.isend(args.send, blockBytes, (r + s) % n));
  ctx.device().copy(outBlock(r), args.send, blockBytes);  // a no-op in place
  for (Request& request : requests) transport.wait(request);
}

}  // namespace cclab
