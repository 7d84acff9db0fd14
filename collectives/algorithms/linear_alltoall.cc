// Linear all-to-all: every rank posts its n-1 receives and n-1 sends at once and waits for them
// all, as Open MPI's basic linear alltoall does. One step of latency where the pairwise exchange
// takes n-1 dependent steps: it wins for small blocks, most of all where ranks outnumber the cores
// and each dependent step waits for its peer to be scheduled; for large blocks every rank's link
// carries all its traffic at once, which the pairwise exchange spreads out. The sends go in the
// pairwise order (rank r first to r+1), so no rank is every rank's first destination.

#include <vector>

#include "collectives/algorithms/alltoall_blocks.h"

namespace cclab {

void linearAllToAll(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int r = ctx.rank();
  const AlltoallBlocks blocks(ctx, args);
  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(n));
  for (int s = 1; s < n; ++s) {
    const int from = (r - s + n) % n;
    requests.push_back(transport.irecv(blocks.out(from), blocks.bytes(), from));
  }
  for (int s = 1; s < n; ++s) {
    const int to = (r + s) % n;
    requests.push_back(transport.isend(blocks.in(to), blocks.bytes(), to));
  }
  ctx.device().copy(blocks.out(r), blocks.in(r), blocks.bytes());  // this rank's own block
  for (Request& request : requests) transport.wait(request);
}

}  // namespace cclab
