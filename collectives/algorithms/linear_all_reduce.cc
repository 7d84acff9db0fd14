// Linear (one-shot) all-reduce: every rank sends its whole input to every other rank at once and
// reduces the n inputs itself, in rank order, so every rank holds the same bits. One step of
// latency where recursive doubling takes log2(n) (+2 with the fold), but every rank sends and
// reduces n-1 whole buffers: a small-message algorithm (NCCL's and TensorRT-LLM's one-shot
// all-reduce inside a node is the same idea), chosen only where the calibration says so.
//
// Slot q of a scratch buffer holds rank q's input; this rank's own is copied there first, so its
// sends read a buffer that an in-place output does not overwrite.

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/one_shot.h"

namespace cclab {

void linearAllReduce(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t bytes = args.count * sizeOf(args.dtype);
  char* inputs = static_cast<char*>(ctx.scratch(bytes * static_cast<std::size_t>(n)));
  auto slot = [&](int q) { return inputs + static_cast<std::size_t>(q) * bytes; };
  device.copy(slot(r), args.send, bytes);

  std::vector<Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(n));
  for (int s = 1; s < n; ++s) {
    const int from = (r - s + n) % n;
    requests.push_back(transport.irecv(slot(from), bytes, from));
  }
  for (int s = 1; s < n; ++s) requests.push_back(transport.isend(slot(r), bytes, (r + s) % n));
  for (Request& request : requests) transport.wait(request);

  reduceSlotsInRankOrder(device, args.recv, inputs, bytes, n, args.count, args.dtype, args.op);  // on every rank alike
}

}  // namespace cclab
