// Linear (one-shot) reduce-scatter: every rank sends block q of its input straight to rank q, all
// at once, and reduces the n blocks it receives for its own, in rank order. One step of latency
// where recursive halving takes log2(n) and the ring n-1, with the ring's bytes on the wire
// ((n-1)/n of the input a rank); for large buffers every rank's port carries all its traffic at
// once, which the ring spreads over its steps. A small-message algorithm, as the linear
// all-reduce and alltoall are (Open MPI's and MPICH's reduce_scatter for short messages reduce
// the same blocks in one round), chosen only where the calibration says so.
//
// Slot q of a scratch buffer holds rank q's contribution to this rank's block; this rank's own
// is copied there first, because an in-place output is that very block of the input and the
// reduction below writes it before it has read every slot.

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/one_shot.h"

namespace cclab {

void linearReduceScatter(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t bytes = args.count * sizeOf(args.dtype);
  auto input = [&](int q) { return elementAt(args.send, static_cast<std::size_t>(q) * args.count, args.dtype); };
  if (n == 1) {
    device.copy(args.recv, args.send, bytes);
    return;
  }
  char* blocks = static_cast<char*>(ctx.scratch(bytes * static_cast<std::size_t>(n)));
  auto slot = [&](int q) { return blocks + static_cast<std::size_t>(q) * bytes; };

  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(n));
  for (int s = 1; s < n; ++s) {
    const int from = (r - s + n) % n;
    requests.push_back(transport.irecv(slot(from), bytes, from));
  }
  for (int s = 1; s < n; ++s) {
    const int to = (r + s) % n;
    requests.push_back(transport.isend(input(to), bytes, to));
  }
  device.copy(slot(r), input(r), bytes);
  for (Request& request : requests) transport.wait(request);

  reduceSlotsInRankOrder(device, args.recv, blocks, bytes, n, args.count, args.dtype, args.op);
}

}  // namespace cclab
